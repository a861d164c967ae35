#!/bin/bash
# tools/check-includes on a made-up src/ tree: allowed includes pass, and each kind of violation (a later stage,
# a peer stage, a nested folder counted as its stage, main.cpp as app, an unranked folder; inside capture a later
# part (model including analysis), a peer part (readers including analysis), an unranked part) is reported as
# FILE:LINE with exit 1. Usage: check_includes_selftest.sh PYTHON CHECKER WORK_DIR
set -u
python=$1 checker=$2 work=$3
rm -rf "$work"
mkdir -p "$work/src"/{common,config,plan,transport/nccl,measure,gather,serve,analysis,report,app,extras} \
  "$work/src/capture"/{model,readers,analysis,render,extras}
src=$work/src
fail() { echo "FAIL: $*"; exit 1; }

# Allowed: same stage, earlier stages, system headers, folder-less includes.
printf '#include "common/error.hpp"\n' >"$src/config/a.hpp"
printf '#include <vector>\n#include "build_info.hpp"\n#include "plan/a.hpp"\n#include "common/x.hpp"\n' \
  >"$src/transport/nccl/a.cpp"
printf '#include "analysis/a.hpp"\n#include "serve/a.hpp"\n' >"$src/report/a.cpp"
printf '#include "report/a.hpp"\n#include "capture/a.hpp"\n' >"$src/app/a.cpp"
printf '#include "app/a.hpp"\n' >"$src/main.cpp"
# capture's parts: readers and analysis read the model, render the results, the door (capture/) all of them.
printf '#include "capture/model/trace_model.hpp"\n#include "analysis/run_report.hpp"\n' >"$src/capture/readers/r.cpp"
printf '#include "capture/model/trace_model.hpp"\n#include "capture/analysis/a.hpp"\n' >"$src/capture/analysis/a.cpp"
printf '#include "capture/analysis/a.hpp"\n#include "capture/model/m.hpp"\n' >"$src/capture/render/w.cpp"
printf '#include "capture/readers/r.hpp"\n#include "capture/render/w.hpp"\n' >"$src/capture/trace_files.cpp"
printf '#include "capture/model/other.hpp"\n#include "common/error.hpp"\n' >"$src/capture/model/m.hpp"
output=$("$python" "$checker" "$src" 2>&1)
rc=$?
echo "$output"
[ "$rc" = 0 ] || fail "a tree without violations: exit $rc, expected 0"

# Violations, one of each kind.
printf '// measure\n#include "common/a.hpp"\n#include "analysis/trial_timeline.hpp"\n' >"$src/measure/point.hpp"
printf '#include "gather/gathered_point.hpp"\n' >"$src/serve/s.cpp"
printf '#include "report/atomic_file.hpp"\n' >"$src/capture/c.cpp"
printf '#include "capture/analysis/kernel_classes.hpp"\n' >"$src/capture/model/trace_result.hpp"
printf '#include "capture/model/trace_model.hpp"\n#include "capture/analysis/trace_analysis.hpp"\n' \
  >"$src/capture/readers/inputs.cpp"
printf '#include "capture/model/trace_model.hpp"\n' >"$src/capture/extras/x.cpp"
printf '  #  include "topology/local_gpu.hpp"\n' >"$src/transport/nccl/g.cpp"
printf '#include "common/a.hpp"\n' >"$src/extras/e.cpp"
printf '#include "widgets/w.hpp"\n' >"$src/plan/w.cpp"
output=$("$python" "$checker" "$src" 2>&1)
rc=$?
echo "$output"
[ "$rc" = 1 ] || fail "a tree with violations: exit $rc, expected 1"
expected="src/capture/c.cpp:1: capture includes report/atomic_file.hpp (a peer stage)
src/capture/extras/x.cpp:1: folder src/capture/extras/ is not a ranked part of capture (add it to tools/check-includes)
src/capture/model/trace_result.hpp:1: capture/model includes capture/analysis/kernel_classes.hpp (a later part of capture)
src/capture/readers/inputs.cpp:2: capture/readers includes capture/analysis/trace_analysis.hpp (a peer part of capture)
src/extras/e.cpp:1: folder src/extras/ is not a ranked stage (add it to tools/check-includes)
src/measure/point.hpp:3: measure includes analysis/trial_timeline.hpp (a later stage)
src/plan/w.cpp:1: plan includes widgets/w.hpp (not a ranked stage)
src/serve/s.cpp:1: serve includes gather/gathered_point.hpp (a peer stage)
src/transport/nccl/g.cpp:1: transport includes topology/local_gpu.hpp (a later stage)
check-includes: 9 include(s) against the stage order"
[ "$output" = "$expected" ] || fail "the report differs from the expected one:
$expected"
echo "ok: violations reported as expected"
