#!/bin/bash
# tools/nightly keeps the history: pcie-node's ten fixture nights run one after another through the stand-in
# launcher (tests/analysis/fake_mpirun.sh) into one OUT_ROOT. Each night lands in OUT_ROOT/history.sqlite, night 9
# prints its suspicious figures and the change point with the NCCL upgrade, night 10 prints the regression; the exit
# code stays the comparison's (0 without a baseline, 1 where compare finds the regression against night 1's report)
# whatever the history says; the page is in OUT_ROOT/history/ and every run's history.txt holds its verdict. Two
# runs started within one second get folders of their own.
# usage: nightly_history_check.sh SOURCE_DIR K25COMM NIGHTS_DIR WORK_DIR
set -euo pipefail
src=$1 k25comm=$2 nights=$3 work=$4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
printf 'model: {name: smoke}\n' >"$work/config.yaml"
out=$work/out
nightly() {  # nightly NIGHT [FLAGS...]: the night's pcie-node report through tools/nightly; prints its output
  local night=$1
  shift
  set +e
  K25_FAKE_REPORT=$nights/pcie-node/2025-06-$night/report.json "$src/tools/nightly" --config "$work/config.yaml" \
    --np 1 --out-root "$out" --mpirun "$src/tests/analysis/fake_mpirun.sh" --k25comm "$k25comm" --no-plots "$@" \
    >"$work/night-$night.log" 2>&1
  local rc=$?
  set -e
  return $rc
}
for night in 01 02 03 04 05 06 07 08 09 10; do
  nightly "$night" --baseline "$work/none.json" && rc=0 || rc=$?
  [ "$rc" -eq 0 ] || { cat "$work/night-$night.log"; fail "night $night without a baseline: exit $rc, expected 0"; }
done
grep -q "history: added 1 night(s) to $out/history.sqlite" "$work/night-01.log" || fail "night 1 not added"
grep -q "history: pcie-node 2025-06-09T02:00:00Z: 3 suspicious" "$work/night-09.log" || fail "night 9's verdict"
grep -q "change point at 2025-06-09T02:00:00Z in allreduce T=1 eager mpi burst.*nccl 2.28.9 -> 2.29.7" \
  "$work/night-09.log" || fail "night 9 does not name the NCCL upgrade at its change point"
grep -q "REGRESSION allreduce T=16 eager mpi burst" "$work/night-10.log" || fail "night 10 does not say REGRESSION"
grep -q "nightly: passed" "$work/night-10.log" || fail "night 10's exit and last line are not the comparison's"
runs=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM run").fetchone()[0])' \
  "$out/history.sqlite")
[ "$runs" -eq 10 ] || fail "$runs nights in history.sqlite, 10 expected"
[ "$(ls -d "$out"/20* | wc -l)" -eq 10 ] || fail "ten runs did not get ten folders"
[ -s "$out/history/index.html" ] && [ -s "$out/history/history.json" ] || fail "no page in $out/history"
grep -q "REGRESSION" "$out/latest/history.txt" || fail "the latest run's history.txt lacks its verdict"
# The page links each night's report below OUT_ROOT, relative to the page.
grep -q '"report":"../20[^"]*/report.md"' "$out/history/history.json" || fail "the page does not link the reports"

# With night 1's report as the baseline, compare finds the regression: exit 1, as before the history.
nightly 11 --baseline "$nights/pcie-node/2025-06-01/report.json" && rc=0 || rc=$?
[ "$rc" -eq 1 ] || { cat "$work/night-11.log"; fail "night 11 against night 1: exit $rc, expected 1"; }
# The same night again adds nothing to the history, and exits as the comparison says.
nightly 11 --baseline "$work/none.json" && rc=0 || rc=$?
[ "$rc" -eq 0 ] || fail "night 11 again without a baseline: exit $rc, expected 0"
grep -q "added 0 night(s).*1 already there" "$work/night-11.log" || fail "the same night was added twice"
echo "PASS"
