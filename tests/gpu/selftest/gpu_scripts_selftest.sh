#!/bin/bash
# CPU self-test of the GPU scripts (ctest label gpu-scripts; no GPU): tools/gpu-checks, tests/gpu/*.sh and the
# benchmarks driven through their control flow with stand-ins for what lies outside the project (fakes/: nvidia-smi,
# mpirun, the MPS daemon, k25comm, nccl-tests, the GPU test binaries, bare_allreduce), so that exit-status,
# argument, path and time-limit errors show here instead of on the GPU machine.
# usage: gpu_scripts_selftest.sh CASE WORK_DIR
#   groups      gpu-checks runs named checks and benchmarks from a stand-in bundle: each PASS, results and logs
#               under $OUT, exit 0
#   time-limit  a check whose k25comm never returns: its own inner limit ends it before the outer one, the checks
#               after it are listed as not run, nothing is left running, exit 1, all within the run's budget
#   as-they-end gpu-checks killed mid-run still leaves the summary and log of every check that ended before
#   help        `gpu-checks help` (and --help) prints the whole header, every group and every check of the table;
#               `list` is the table; an unknown command, or a K25_GPU_ONLY group or check, exits 2 with the names;
#               a check in a group the group table lacks is refused
#   capture     capture_gpu_check.sh: no option given twice, every Inspector run above one rank, nccl-tests found
#               under NCCL_TESTS_DIR/bin, results in $OUT
#   bench-nccl  in band exits 0; a k25comm figure out of band exits 1 (not tee's status); a failed run exits 1
#   bench-decode in band 0; the zero-gap ratio or the gap ratio out of band 1
#   bench-host  bench-host-allreduce with --build/--bare/--out: in band 0; watched/plain or k25comm/bare out 1;
#               a machine too busy to judge k25comm/bare 77 (the watch band still judged)
#   two-hosts   compare_two_hosts.py: a two-host op p50 above the one-host one passes, at or below it fails
#   backends    the backends group (1, 4 and 8 ranks): each check PASS with every backend's rows wrong == 0, its
#               figures (backends-figures.txt) and reports under $OUT as it ends; a backend with wrong elements
#               makes its check FAIL, naming it
set -u
case_name=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
fakes=$here/fakes
rm -rf "$work"
mkdir -p "$work"
export PATH="$fakes:$PATH"
export K25_FAKE_MARK=k25-selftest-$$  # every stand-in inherits it: how leftovers are found
unset K25_DEADLINE K25_RUN_TOKEN K25_GPU_ONLY OUT
fail() { echo "FAIL ($case_name): $*"; exit 1; }
# shellcheck source=../../common/wait.sh
source "$root/tests/common/wait.sh"
# shellcheck source=../../common/processes.sh
source "$root/tests/common/processes.sh"

# A bundle of stand-ins, laid out as tools/gpu-checks bundle lays out the real one.
make_bundle() {  # DIR
  mkdir -p "$1/bin" "$1/lib" "$1/ref/nccl-tests/bin" "$1/ref/nccl-tests/lib" "$1/ref/nccl-inspector"
  for b in k25comm k25_cuda_device_count k25_gpu_kernel_tests k25_nccl_transport_driver k25_topology_probe_driver \
    bare_allreduce; do
    ln -s "$fakes/$b" "$1/bin/$b"
  done
  for b in all_reduce_perf alltoall_perf all_gather_perf reduce_scatter_perf sendrecv_perf; do
    ln -s "$fakes/nccl_tests" "$1/ref/nccl-tests/bin/$b"
  done
  : >"$1/ref/nccl-inspector/libnccl-profiler-inspector.so"
  echo "selftest" >"$1/SOURCE"
}
# The pids of stand-ins of this test still running (or, given a pattern, of those whose command line matches it).
leftovers() {  # [PATTERN]
  local pid pattern=${1:-fakes/|gpu-checks|k25comm_gpu_check|capture_gpu_check}
  for pid in $(pids_with_env "K25_FAKE_MARK=$K25_FAKE_MARK"); do
    [ "$pid" = $$ ] && continue
    [[ "$(cmdline_of "$pid")" =~ $pattern ]] && echo "$pid"
  done
  return 0
}
running() { [ -n "$(leftovers "$1")" ]; }  # PATTERN: whether a process of this test matching PATTERN runs
# Kills every stand-in of this test; true once a pass found none. One pass is not enough: a check killed while it
# forks leaves a child that the pass did not see (3 stand-in k25comm of 20 as-they-end runs under a CPU hog).
kill_leftovers() {
  local pids
  pids=$(leftovers)
  [ -z "$pids" ] && return 0
  # shellcheck disable=SC2086  # a list of pids
  kill -KILL $pids 2>/dev/null
  return 1
}
expect_line() {  # FILE REGEX WHAT
  grep -qE "$2" "$1" || { echo "--- $1"; cat "$1"; fail "$3"; }
}
# expect_band NAME WANT FLAG [VAR=VALUE...]: the case's run_bench NAME with those figures must exit WANT; out of
# band (WANT 1) its output must flag the row with FLAG.
expect_band() {
  local name=$1 want=$2 flag=$3 rc
  shift 3
  run_bench "$name" "$@"
  rc=$?
  [ "$rc" = "$want" ] || { cat "$work/$name.log"; fail "$name: exit $rc, expected $want"; }
  [ "$want" = 0 ] || expect_line "$work/$name.log" "$flag" "$name: the row out of band is not flagged"
}

case "$case_name" in
groups)
  make_bundle "$work/bundle"
  checks="version kernels transport k25comm k25comm-hang ranks decode register emulated-4 emulated-kill"
  checks="$checks emulated-hang bench-nccl bench-decode bench-host-allreduce"
  K25_GPU_BUNDLE=$work/bundle OUT=$work/out K25_NCCL_LIB='' K25_BENCH_RANKS="1 2" K25_GPU_ONLY="$checks" \
    "$root/tools/gpu-checks" run >"$work/run.log" 2>&1
  rc=$?
  cat "$work/run.log"
  for check in $checks; do
    expect_line "$work/out/summary.txt" "^$check +[a-z-]+ +PASS " "$check did not pass"
    [ -s "$work/out/logs/$check.log" ] || fail "no log of $check under \$OUT"
  done
  expect_line "$work/out/summary.txt" "^14 passed, 0 failed, 0 skipped, 0 not run" "the totals"
  # The benchmarks found their inputs in the bundle (finding 2: the host ones defaulted to ./build before).
  [ -s "$work/out/bench-host-allreduce/out/bench-host-allreduce.txt" ] || fail "bench-host-allreduce left no table"
  [ -s "$work/out/bench-nccl/out/bench-nccl.txt" ] || fail "bench-nccl left no table"
  [ -f "$work/out/k25comm/out/report.json" ] || fail "the k25comm check's report did not come back"
  [ -s "$work/out/machine.txt" ] || fail "no machine.txt"
  [ "$rc" = 0 ] || fail "exit $rc with every check passed"
  [ -z "$(leftovers)" ] || fail "processes left running: $(leftovers)"
  echo "ok: 14 checks through gpu-checks with stand-ins, each PASS, results under \$OUT"
  ;;
time-limit)
  make_bundle "$work/bundle"
  start=$(date +%s)
  K25_FAKE_SLEEP=1000 K25_GPU_BUNDLE=$work/bundle OUT=$work/out K25_GPU_TIME_S=30 K25_NCCL_LIB='' \
    K25_GPU_ONLY="k25comm k25comm-hang device-only" "$root/tools/gpu-checks" run >"$work/run.log" 2>&1
  rc=$?
  took=$(($(date +%s) - start))
  cat "$work/run.log"
  [ "$rc" = 1 ] || fail "exit $rc, expected 1"
  # The check's own limit (its deadline minus the margin) fires first: it fails by itself, not by the outer kill.
  expect_line "$work/out/summary.txt" "^k25comm +correctness +FAIL \(exit 1\)" "k25comm was not ended by its inner limit"
  expect_line "$work/out/logs/k25comm.log" "ran out of its time limit" "the check does not say it ran out of time"
  expect_line "$work/out/summary.txt" "^device-only +correctness +NOT RUN \(out of time\)" "device-only was started late"
  expect_line "$work/out/summary.txt" "0 passed, 1 failed, 0 skipped, 2 not run" "the totals"
  [ "$took" -le 40 ] || fail "took $took s with a budget of 30 s"
  [ -z "$(leftovers)" ] || fail "processes left running: $(leftovers)"
  echo "ok: inner limit first, later checks not run, nothing left, $took s for a 30 s budget"
  ;;
as-they-end)
  make_bundle "$work/bundle"
  # version ends at once; k25comm never does. gpu-checks is then killed as the device tool's limit would.
  K25_FAKE_SLEEP=1000 K25_GPU_BUNDLE=$work/bundle OUT=$work/out K25_NCCL_LIB='' K25_GPU_ONLY="version k25comm" \
    setsid "$root/tools/gpu-checks" run >"$work/run.log" 2>&1 &
  runner=$!
  wait_until 30 "the version check's line in the summary" grep -qs "^version " "$work/out/summary.txt" ||
    { kill -KILL -- "-$runner"; fail "$WAIT_ERROR"; }
  # mid-run: the k25comm check (eager-graph) has started, and never ends
  wait_until --alive "$runner" 30 "the k25comm check running" running "k25comm_gpu_check.sh eager-graph" ||
    { kill -KILL -- "-$runner"; fail "$WAIT_ERROR"; }
  kill -KILL -- "-$runner" 2>/dev/null
  wait "$runner" 2>/dev/null
  # the killed run's check, in its own session, and whatever it started meanwhile
  wait_until 30 "every process of the killed run ended" kill_leftovers || fail "$WAIT_ERROR: $(leftovers)"
  expect_line "$work/out/summary.txt" "^version +correctness +PASS" "the summary lost the check that ended"
  [ -s "$work/out/logs/version.log" ] || fail "the log of the check that ended is not under \$OUT"
  [ -s "$work/out/machine.txt" ] || fail "no machine.txt"
  echo "ok: a run cut short keeps what had ended"
  ;;
help)
  "$root/tools/gpu-checks" help >"$work/help.txt"
  [ "$?" = 0 ] || fail "help did not exit 0"
  expect_line "$work/help.txt" "^Exit status: 0 when every check run passed" "the header is cut"
  "$root/tools/gpu-checks" list >"$work/list.txt"
  [ "$(wc -l <"$work/list.txt")" -ge 20 ] || fail "the table is short"
  while read -r name group _; do
    grep -q "^$name  *$group " "$work/help.txt" || fail "help does not list $name"
    grep -q "^$group " "$work/help.txt" || fail "help does not list group $group"
  done <"$work/list.txt"
  "$root/tools/gpu-checks" --help >"$work/dash-help.txt"
  [ "$?" = 0 ] && cmp -s "$work/help.txt" "$work/dash-help.txt" || fail "--help is not help"
  "$root/tools/gpu-checks" bogus >/dev/null 2>&1
  [ "$?" = 2 ] || fail "an unknown command does not exit 2"
  # An unknown group or check: exit 2 before the bundle is looked for, naming it and every group of the table.
  groups=$(awk '!seen[$2]++ { print $2 }' "$work/list.txt" | xargs)
  for name in nosuchgroup nosuchcheck; do
    K25_GPU_ONLY="correctness $name version" K25_GPU_BUNDLE=$work/bundle "$root/tools/gpu-checks" run \
      >"$work/bad.txt" 2>&1
    [ "$?" = 2 ] || { cat "$work/bad.txt"; fail "K25_GPU_ONLY naming $name does not exit 2"; }
    expect_line "$work/bad.txt" "names no group or check: $name \(groups: $groups; checks: version " \
      "the message does not name $name and the groups ($groups)"
  done
  # A check whose group is not in the group table: every command refuses it, naming the check.
  mkdir -p "$work/repo/tools"
  ln -s "$root/tools/lib" "$root/tools/bench" "$work/repo/tools/"
  sed 's/^\(emulated-8  *\)emulated /\1emulatd   /' "$root/tools/gpu-checks" >"$work/repo/tools/gpu-checks"
  chmod +x "$work/repo/tools/gpu-checks"
  "$work/repo/tools/gpu-checks" list >"$work/broken.txt" 2>&1
  [ "$?" = 2 ] || fail "a check in an unknown group is listed"
  expect_line "$work/broken.txt" "check emulated-8 is in no group of GROUP_TABLE \(emulatd\)" \
    "the broken row is not named"
  # A branch of check_command left for a check no longer in the table: named too.
  sed 's/^    topology) cmd=/    topology | retired-check) cmd=/' "$root/tools/gpu-checks" >"$work/repo/tools/gpu-checks"
  "$work/repo/tools/gpu-checks" list >"$work/broken.txt" 2>&1
  [ "$?" = 2 ] || fail "a leftover branch of check_command is not refused"
  expect_line "$work/broken.txt" "check_command has a branch retired-check for no check of CHECK_TABLE" \
    "the leftover branch is not named"
  echo "ok: help prints the whole header and all $(wc -l <"$work/list.txt") checks; unknown names and groups, a check in no group, a leftover branch exit 2"
  ;;
capture)
  make_bundle "$work/bundle"
  K25_FAKE_NT_LOG=$work/nccl-tests.log OUT=$work/out NCCL_TESTS_DIR=$work/bundle/ref/nccl-tests \
    K25_INSPECTOR_SO=$work/bundle/ref/nccl-inspector/libnccl-profiler-inspector.so \
    "$root/tests/gpu/capture_gpu_check.sh" "$work/bundle/bin/k25comm" "$root/configs/kimi.yaml" \
    "$work/bundle/bin/k25_cuda_device_count" "$fakes/mpirun" >"$work/capture.log" 2>&1
  cat "$work/capture.log"
  ! grep -q "At Most 1 required" "$work/capture.log" || fail "an option is given twice"
  ! grep -q "the Inspector wrote no file" "$work/capture.log" || fail "an Inspector run had one rank (no records)"
  expect_line "$work/nccl-tests.log" "^all_reduce_perf .*-G 20" "nccl-tests' graph run not found under NCCL_TESTS_DIR/bin"
  expect_line "$work/nccl-tests.log" "^sendrecv_perf " "sendrecv_perf not found"
  [ -f "$work/out/inspector-dumps.tar.gz" ] && [ -f "$work/out/capture-gpu-figures.txt" ] || fail "results not in \$OUT"
  [ -z "$(leftovers)" ] || fail "processes left running: $(leftovers)"
  echo "ok: the capture check's runs are well formed and find their inputs"
  ;;
bench-nccl)
  make_bundle "$work/bundle"
  run_bench() {  # NAME [env...]: exit status of bench-nccl
    env "${@:2}" K25COMM="$work/bundle/bin/k25comm" NCCL_TESTS_DIR="$work/bundle/ref/nccl-tests" MPIRUN=mpirun \
      K25_BENCH_RANKS="1 2" OUT="$work/$1" "$root/tools/bench-nccl" >"$work/$1.log" 2>&1
  }
  expect_band in-band 0 "" K25_FAKE_OP_US=6.3 K25_FAKE_NT_US=6.0
  expect_line "$work/in-band/bench-nccl.txt" "banded ratio\(s\), 0 outside" "no banded rows"
  expect_band out-of-band 1 "outside 0.90-1.15" K25_FAKE_OP_US=9.0 K25_FAKE_NT_US=6.0  # a ratio of 1.5
  expect_band wrong 1 "WRONG 3" K25_FAKE_WRONG=3
  expect_band skip 77 "" K25_FAKE_NO_GPU=1
  echo "ok: bench-nccl passes in band, exits 1 out of band or with wrong elements, 77 without a GPU"
  ;;
bench-decode)
  make_bundle "$work/bundle"
  run_bench() {  # NAME [env...]
    env "${@:2}" K25COMM="$work/bundle/bin/k25comm" OUT="$work/$1" "$root/tools/bench-decode" >"$work/$1.log" 2>&1
  }
  expect_band in-band 0 "" K25_FAKE_OP_US=6.0 K25_FAKE_DECODE_OP_US=6.1 K25_FAKE_GAP_RATIO=1.03
  expect_band zero-out 1 "ZERO-GAP RATIO OUT OF BAND" K25_FAKE_OP_US=6.0 K25_FAKE_DECODE_OP_US=7.5
  expect_band gap-out 1 " GAP RATIO OUT OF BAND" K25_FAKE_GAP_RATIO=0.98
  echo "ok: bench-decode passes in band and exits 1 out of either band"
  ;;
bench-host)
  make_bundle "$work/bundle"
  run_bench() {  # NAME [env...]
    env "${@:2}" MPIRUN=mpirun "$root/tools/bench-host-allreduce" 2 --ranks 2 --dtypes bf16 \
      --build "$work/bundle/bin" --bare "$work/bundle/bin/bare_allreduce" --out "$work/$1" >"$work/$1.log" 2>&1
  }
  expect_band in-band 0 "" K25_FAKE_WATCH_RATIO=1.01 K25_FAKE_OVER_BARE=1.05
  [ -s "$work/in-band/bench-host-allreduce.txt" ] || fail "--out got no table"
  expect_band watch-out 1 "watched/plain outside" K25_FAKE_WATCH_RATIO=1.06
  expect_band k25-out 1 "k25/bare outside" K25_FAKE_OVER_BARE=1.2
  expect_band busy 77 "" K25_FAKE_OVER_BARE=1.2 K25_FAKE_CONTENTION=5
  expect_line "$work/busy.log" "k25/bare not judged" "the busy machine's row is not named"
  expect_band busy-watch-out 1 "watched/plain outside" K25_FAKE_CONTENTION=5 K25_FAKE_WATCH_RATIO=1.06
  echo "ok: bench-host-allreduce passes in band, exits 1 out of either band, 77 when too busy to judge"
  ;;
backends)
  make_bundle "$work/bundle"
  K25_GPU_BUNDLE=$work/bundle OUT=$work/out K25_NCCL_LIB='' K25_GPU_ONLY=backends "$root/tools/gpu-checks" run \
    >"$work/run.log" 2>&1
  rc=$?
  cat "$work/run.log"
  for check in backends-1 backends-4 backends-8; do
    expect_line "$work/out/summary.txt" "^$check +backends +PASS " "$check did not pass"
    [ -s "$work/out/$check/out/backends-figures.txt" ] || fail "$check's figures did not come back under \$OUT"
    [ -f "$work/out/$check/out/report.json" ] || fail "$check's report did not come back"
    expect_line "$work/out/$check/out/backends-figures.txt" "oneshot-pull +T=16 +decode .* wrong 0" \
      "$check's figures lack a backend, a token count or a mode"
  done
  expect_line "$work/out/summary.txt" "^3 passed, 0 failed, 0 skipped, 0 not run" "the totals"
  [ "$rc" = 0 ] || fail "exit $rc with every check passed"
  # A backend with wrong elements fails its check, and the log names it.
  K25_FAKE_WRONG_BACKEND=twoshot K25_GPU_BUNDLE=$work/bundle OUT=$work/wrong K25_NCCL_LIB='' \
    K25_GPU_ONLY=backends-4 "$root/tools/gpu-checks" run >"$work/wrong.log" 2>&1
  rc=$?
  [ "$rc" = 1 ] || { cat "$work/wrong.log"; fail "a wrong backend: exit $rc, expected 1"; }
  expect_line "$work/wrong/summary.txt" "^backends-4 +backends +FAIL \(exit 1\)" "the wrong backend's check passed"
  expect_line "$work/wrong/logs/backends-4.log" "'twoshot', 16, 'eager', 5|'twoshot', 1, 'eager', 5" \
    "the log does not name the wrong backend"
  [ -z "$(leftovers)" ] || fail "processes left running: $(leftovers)"
  echo "ok: the backends group at 1, 4 and 8 ranks with stand-ins, figures under \$OUT; a wrong backend fails its check"
  ;;
two-hosts)
  python3 - "$work" <<'PY'
import json, os, sys
work = sys.argv[1]
def report(path, hosts, op_us):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    json.dump({"run": {"transport": "mpi"},
               "topology": {"kind": "host", "link_description": "the run spans 2 hosts" if len(hosts) > 1 else "",
                            "hosts": [{"name": n, "ranks": r, "kind": "host"} for n, r in hosts]},
               "results": [{"phase": "allreduce", "tokens": 1, "mode": "eager", "bytes_per_op": 14336,
                            "op_us": {"p50": op_us}, "step_us": {"p50": op_us * 122}, "ops_per_step": 122,
                            "wrong": 0}]}, open(path, "w"))
for case, two_us in (("slower", 30.0), ("same", 10.0)):
    report(f"{work}/{case}/one-host/report.json", [("h1", [0, 1, 2, 3])], 10.0)
    report(f"{work}/{case}/two-hosts/report.json", [("h1", [0, 1]), ("h2", [2, 3])], two_us)
PY
  python3 "$root/tools/bench/compare_two_hosts.py" "$work/slower" h1 h2 4 || fail "a visible hop did not pass"
  python3 "$root/tools/bench/compare_two_hosts.py" "$work/same" h1 h2 4 >"$work/same.log"
  [ "$?" = 1 ] || { cat "$work/same.log"; fail "a ratio of 1.00 did not exit 1"; }
  echo "ok: the two-hosts band passes a visible hop and fails a ratio of 1.00"
  ;;
*)
  fail "unknown case"
  ;;
esac
