#!/bin/bash
# The setup of the tools/nightly tests, sourced after `src`, `k25comm` and `work` are set: a fresh WORK_DIR with a
# config and baseline.json (a copy of data/$1-report.json), fail(), and nightly NAME [FLAGS...], which runs
# tools/nightly into WORK_DIR/NAME with the stand-in launcher (tests/analysis/fake_mpirun.sh; $NP ranks, default 8)
# and returns its exit code.
data=$src/tests/analysis/data
rm -rf "$work" && mkdir -p "$work"
cp "$data/$1-report.json" "$work/baseline.json"
printf 'model: {name: kimi-k2.5}\n' > "$work/config.yaml"
fail() { echo "FAIL: $*"; exit 1; }
nightly() {
  local name=$1
  shift
  set +e
  "$src/tools/nightly" --config "$work/config.yaml" --baseline "$work/baseline.json" --np "${NP:-8}" \
    --out-root "$work/$name" --mpirun "$src/tests/analysis/fake_mpirun.sh" --k25comm "$k25comm" "$@"
  local rc=$?
  set -e
  return $rc
}
