#!/bin/bash
# tools/check-includes on a made-up src/ tree: allowed includes pass, and each kind of violation (a later stage,
# a peer stage, a nested folder counted as its stage, main.cpp as app, an unranked folder) is reported as
# FILE:LINE with exit 1. Usage: check_includes_selftest.sh PYTHON CHECKER WORK_DIR
set -u
python=$1 checker=$2 work=$3
rm -rf "$work"
mkdir -p "$work/src"/{common,config,plan,transport/nccl,measure,gather,serve,analysis,capture,report,app,extras}
src=$work/src
fail() { echo "FAIL: $*"; exit 1; }

# Allowed: same stage, earlier stages, system headers, folder-less includes.
printf '#include "common/error.hpp"\n' >"$src/config/a.hpp"
printf '#include <vector>\n#include "build_info.hpp"\n#include "plan/a.hpp"\n#include "common/x.hpp"\n' \
  >"$src/transport/nccl/a.cpp"
printf '#include "analysis/a.hpp"\n#include "serve/a.hpp"\n' >"$src/report/a.cpp"
printf '#include "report/a.hpp"\n#include "capture/a.hpp"\n' >"$src/app/a.cpp"
printf '#include "app/a.hpp"\n' >"$src/main.cpp"
output=$("$python" "$checker" "$src" 2>&1)
rc=$?
echo "$output"
[ "$rc" = 0 ] || fail "a tree without violations: exit $rc, expected 0"

# Violations, one of each kind.
printf '// measure\n#include "common/a.hpp"\n#include "analysis/trial_timeline.hpp"\n' >"$src/measure/point.hpp"
printf '#include "gather/gathered_point.hpp"\n' >"$src/serve/s.cpp"
printf '#include "report/atomic_file.hpp"\n' >"$src/capture/c.cpp"
printf '  #  include "topology/local_gpu.hpp"\n' >"$src/transport/nccl/g.cpp"
printf '#include "common/a.hpp"\n' >"$src/extras/e.cpp"
printf '#include "widgets/w.hpp"\n' >"$src/plan/w.cpp"
output=$("$python" "$checker" "$src" 2>&1)
rc=$?
echo "$output"
[ "$rc" = 1 ] || fail "a tree with violations: exit $rc, expected 1"
expected="src/capture/c.cpp:1: capture includes report/atomic_file.hpp (a peer stage)
src/extras/e.cpp:1: folder src/extras/ is not a ranked stage (add it to tools/check-includes)
src/measure/point.hpp:3: measure includes analysis/trial_timeline.hpp (a later stage)
src/plan/w.cpp:1: plan includes widgets/w.hpp (not a ranked stage)
src/serve/s.cpp:1: serve includes gather/gathered_point.hpp (a peer stage)
src/transport/nccl/g.cpp:1: transport includes topology/local_gpu.hpp (a later stage)
check-includes: 6 include(s) against the stage order"
[ "$output" = "$expected" ] || fail "the report differs from the expected one:
$expected"
echo "ok: violations reported as expected"
