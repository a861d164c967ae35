#!/bin/bash
# tools/nightly with a stand-in launcher: exit 0 for the same run, 1 for a regression or a missing point, 2 for
# reports that cannot be compared, 3 whenever the run itself failed; --oversubscribe where the node has fewer cores
# than ranks; --update-baseline leaves the baseline alone unless everything passed; the dated folder holds
# report.md, plots and compare.txt.
# usage: nightly_check.sh SOURCE_DIR K25COMM WORK_DIR
set -euo pipefail
src=$1 k25comm=$2 work=$3
source "$src/tests/analysis/nightly_lib.sh" pcie

K25_FAKE_REPORT=$data/pcie-report.json nightly same && rc=0 || rc=$?
[ "$rc" -eq 0 ] || fail "same report: exit $rc, expected 0"
day=$(ls "$work/same" | grep -v latest | head -1)
for f in report.json report.md burst_vs_tokens.png compare.txt run.log vs-baseline/attribution.png; do
  [ -s "$work/same/$day/$f" ] || fail "missing $day/$f"
done
[ -L "$work/same/latest" ] || fail "no latest link"

K25_FAKE_REPORT=$data/future-schema-report.json nightly incompatible --no-plots && rc=0 || rc=$?
[ "$rc" -eq 2 ] || fail "unreadable new report: exit $rc, expected 2"

cp "$data/nvlink-report.json" "$work/baseline.json"
K25_FAKE_ARGS=$work/slower-args.txt K25_FAKE_REPORT=$data/pcie-report.json nightly slower --no-plots && rc=0 ||
  rc=$?
[ "$rc" -eq 1 ] || fail "PCIe run against an NVLink baseline: exit $rc, expected 1 (regression)"
grep -q "REGRESSION" "$work/slower/"*/compare.txt || fail "compare.txt does not say REGRESSION"
# --no-plots (the cases after "same" take it: their plots are not what they check): the run and the re-render got
# it, no PNG and no vs-baseline/.
grep -qx -- "--no-plots" "$work/slower-args.txt" || fail "--no-plots did not reach the run"
slower_day=$(ls "$work/slower" | grep -v latest | head -1)
[ -s "$work/slower/$slower_day/report.md" ] || fail "--no-plots: no report.md"
pngs=$(find "$work/slower" -name '*.png')
[ -z "$pngs" ] || fail "--no-plots: plots made: $pngs"
[ ! -e "$work/slower/$slower_day/vs-baseline" ] || fail "--no-plots: vs-baseline/ made"

K25_FAKE_REPORT=$data/nvlink-report.json K25_FAKE_RC=3 nightly crashed --no-plots && rc=0 || rc=$?
[ "$rc" -eq 3 ] || fail "run that failed with 3: exit $rc, expected 3"
# A run with wrong results exits 1 itself: the nightly says 3 (the run failed), never 1 (a regression).
K25_FAKE_REPORT=$data/nvlink-report.json K25_FAKE_RC=1 nightly wrong --no-plots && rc=0 || rc=$?
[ "$rc" -eq 3 ] || fail "run that failed with 1: exit $rc, expected 3 (run failure, not a regression)"

# More ranks than cores: --oversubscribe reaches the launcher, as tools/mpirun-k25comm adds it.
NP=$(( $(nproc) + 1 )) K25_FAKE_ARGS=$work/args.txt K25_FAKE_REPORT=$data/nvlink-report.json \
  nightly busy --no-plots && rc=0 || rc=$?
[ "$rc" -eq 0 ] || fail "oversubscribed run: exit $rc, expected 0"
grep -qx -- "--oversubscribe" "$work/args.txt" || fail "no --oversubscribe with more ranks than cores"
NP=1 K25_FAKE_ARGS=$work/args.txt K25_FAKE_REPORT=$data/nvlink-report.json nightly one-rank --no-plots && rc=0 ||
  rc=$?
! grep -qx -- "--oversubscribe" "$work/args.txt" || fail "--oversubscribe with fewer ranks than cores"

# --update-baseline: a baseline with a point the new run lacks is not replaced (a missing point fails).
python3 - "$data/nvlink-report.json" "$work/baseline.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
extra = dict(report["results"][3])
extra["tokens"] = 256
report["results"].append(extra)
json.dump(report, open(sys.argv[2], "w"))
PY
before=$(sha256sum <"$work/baseline.json")
K25_FAKE_REPORT=$data/nvlink-report.json nightly missing --update-baseline --no-plots && rc=0 || rc=$?
[ "$rc" -eq 1 ] || fail "a run missing the baseline's T=256: exit $rc, expected 1"
grep -q "missing points: allreduce T=256 eager (base only)" "$work/missing/"*/compare.txt ||
  fail "compare.txt does not list the missing point"
[ "$(sha256sum <"$work/baseline.json")" = "$before" ] || fail "--update-baseline replaced the baseline after a failure"
cp "$data/nvlink-report.json" "$work/baseline.json"
K25_FAKE_REPORT=$data/nvlink-report.json nightly update --update-baseline --no-plots && rc=0 || rc=$?
[ "$rc" -eq 0 ] || fail "same run with --update-baseline: exit $rc, expected 0"
grep -q '"schema_version": 4' "$work/baseline.json" || fail "--update-baseline did not copy the passing report"
echo "ok: nightly exit codes, --oversubscribe, --update-baseline and outputs"
