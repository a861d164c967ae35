#!/bin/bash
# tools/nightly with a stand-in launcher: exit code = compare's (0 same run, 1 regression), the run's own code when
# the run failed, and the dated folder holds report.md, plots and compare.txt.
# usage: nightly_check.sh SOURCE_DIR K25COMM WORK_DIR
set -euo pipefail
src=$1 k25comm=$2 work=$3
data=$src/tests/analysis/data
rm -rf "$work" && mkdir -p "$work"
cp "$data/pcie-report.json" "$work/baseline.json"
printf 'model: {name: kimi-k2.5}\n' > "$work/config.yaml"
fail() { echo "FAIL: $*"; exit 1; }
nightly() {
  set +e
  "$src/tools/nightly" --config "$work/config.yaml" --baseline "$work/baseline.json" --np 8 --out-root "$work/$1" \
    --mpirun "$src/tests/analysis/fake_mpirun.sh" --k25comm "$k25comm"
  local rc=$?
  set -e
  return $rc
}

K25_FAKE_REPORT=$data/pcie-report.json nightly same && rc=0 || rc=$?
[ "$rc" -eq 0 ] || fail "same report: exit $rc, expected 0"
day=$(ls "$work/same" | grep -v latest | head -1)
for f in report.json report.md burst_vs_tokens.png compare.txt run.log vs-baseline/attribution.png; do
  [ -s "$work/same/$day/$f" ] || fail "missing $day/$f"
done
[ -L "$work/same/latest" ] || fail "no latest link"

K25_FAKE_REPORT=$data/future-schema-report.json nightly incompatible && rc=0 || rc=$?
[ "$rc" -eq 2 ] || fail "unreadable new report: exit $rc, expected 2"

cp "$data/nvlink-report.json" "$work/baseline.json"
K25_FAKE_REPORT=$data/pcie-report.json nightly slower && rc=0 || rc=$?
[ "$rc" -eq 1 ] || fail "PCIe run against an NVLink baseline: exit $rc, expected 1 (regression)"
grep -q "REGRESSION" "$work/slower/"*/compare.txt || fail "compare.txt does not say REGRESSION"

K25_FAKE_REPORT=$data/nvlink-report.json K25_FAKE_RC=3 nightly crashed && rc=0 || rc=$?
[ "$rc" -eq 3 ] || fail "run that failed with 3: exit $rc, expected 3"
echo "ok: nightly exit codes and outputs"
