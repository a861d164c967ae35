#!/bin/bash
# tools/nightly as issue 21 found it, with a stand-in launcher (and the real one for --np 7): a run that refuses its
# arguments exits 2, not 3; the headline is printed once; the comparison plots name "baseline" and "this run";
# compare.txt says when runs were oversubscribed, and their slower figures do not fail the nightly unless
# --fail-oversubscribed.
# usage: nightly_issue21_check.sh SOURCE_DIR K25COMM WORK_DIR
set -euo pipefail
src=$1 k25comm=$2 work=$3
source "$src/tests/analysis/nightly_lib.sh" nvlink

# Issue 21 item 6. A run that refuses its arguments is bad usage (2), not a failed run (3): the stand-in, and the
# real thing (Kimi's 384 experts do not split over 7 ranks), and an --np that is no number of ranks.
K25_FAKE_REPORT=$data/nvlink-report.json K25_FAKE_RC=2 nightly refused --no-plots && rc=0 || rc=$?
[ "$rc" -eq 2 ] || fail "run that exited 2: exit $rc, expected 2"
NP=x K25_FAKE_REPORT=$data/nvlink-report.json nightly bad-np --no-plots && rc=0 || rc=$?
[ "$rc" -eq 2 ] || fail "--np x: exit $rc, expected 2"
if command -v mpirun >/dev/null; then
  set +e
  "$src/tools/nightly" --config "$src/configs/kimi.yaml" --baseline "$work/baseline.json" --np 7 \
    --out-root "$work/np7" --k25comm "$k25comm" >"$work/np7.log" 2>&1
  rc=$?
  set -e
  [ "$rc" -eq 2 ] || { cat "$work/np7.log"; fail "real run with --np 7: exit $rc, expected 2"; }
  grep -q "the run refused its arguments" "$work/np7.log" || fail "--np 7: no word that the run refused them"
fi

# The headline once (the run's), not again from the re-render; the comparison plots name baseline and this run.
cat >"$work/python-logger" <<PY
#!/bin/bash
[ "\$(basename "\$1")" = plot-report ] && printf '%s\n' "\$@" >"$work/plot-args.txt"
exec /usr/bin/python3 "\$@"
PY
chmod +x "$work/python-logger"
K25_PYTHON=$work/python-logger K25_FAKE_REPORT=$data/nvlink-report.json nightly once >"$work/once.log" 2>&1 &&
  rc=0 || rc=$?
[ "$rc" -eq 0 ] || { cat "$work/once.log"; fail "same run: exit $rc"; }
day=$(ls "$work/once" | grep -v latest | head -1)
[ "$(grep -c "headline:" "$work/once.log")" -eq "$(grep -c "headline:" "$work/once/$day/run.log")" ] ||
  fail "the headline is printed again after the run's own"
grep -q "headline:" "$work/once/$day/report.log" || fail "report.log lacks the re-render's output"
python3 - "$work/plot-args.txt" <<'PY' || fail "vs-baseline plots are not named baseline and this run"
import sys
args = open(sys.argv[1]).read().split("\n")
i = args.index("--name")
assert args[i:i + 4] == ["--name", "baseline", "--name", "this run"], args
PY

# Two oversubscribed runs (8 ranks on 2 cores): compare.txt says so, and their slower figures do not fail the
# nightly unless --fail-oversubscribed.
python3 - "$data" "$work" <<'PY'
import json, sys
data, work = sys.argv[1:3]
for name in ("nvlink", "pcie"):
    report = json.load(open(f"{data}/{name}-report.json"))
    report["run"]["hosts"] = ["vm"] * report["run"]["ranks"]
    report["run"]["host_cores"] = {"vm": 2}
    json.dump(report, open(f"{work}/{name}-busy.json", "w"))
PY
cp "$work/nvlink-busy.json" "$work/baseline.json"
K25_FAKE_REPORT=$work/pcie-busy.json nightly busy-slower --no-plots >"$work/busy-slower.log" 2>&1 && rc=0 || rc=$?
[ "$rc" -eq 0 ] || { cat "$work/busy-slower.log"; fail "oversubscribed runs, slower: exit $rc, expected 0"; }
compare_txt=$work/busy-slower/latest/compare.txt
grep -q "note: the base run was oversubscribed (vm ran 8 ranks on 2 cores)" "$compare_txt" ||
  fail "compare.txt does not say the base run was oversubscribed"
grep -q "note: the new run was oversubscribed (vm ran 8 ranks on 2 cores)" "$compare_txt" ||
  fail "compare.txt does not say the new run was oversubscribed"
# Issue 31 item 3: one rule, k25comm compare's: the slower figures are shown, not judged, in compare and nightly.
! grep -q "REGRESSION" "$compare_txt" || fail "compare.txt marks timings of oversubscribed runs REGRESSION"
grep -q "allreduce T=1 eager .*not judged (oversubscribed)" "$compare_txt" || fail "compare.txt hides the slower figures"
grep -q "verdict: no regression (.*not judged: oversubscribed)" "$compare_txt" ||
  fail "compare.txt's verdict does not count the figures not judged"
grep -q "reported, not judged" "$work/busy-slower.log" || fail "the nightly does not say why it passes"
K25_FAKE_REPORT=$work/pcie-busy.json nightly busy-strict --fail-oversubscribed --no-plots >/dev/null 2>&1 && rc=0 ||
  rc=$?
[ "$rc" -eq 1 ] || fail "--fail-oversubscribed: exit $rc, expected 1"
grep -q "REGRESSION" "$work/busy-strict/latest/compare.txt" || fail "--fail-oversubscribed: no REGRESSION judged"
# The same pair through k25comm compare directly: exit 0, and 1 with --judge-oversubscribed.
"$k25comm" compare "$work/nvlink-busy.json" "$work/pcie-busy.json" >"$work/compare-busy.txt" && rc=0 || rc=$?
[ "$rc" -eq 0 ] || { cat "$work/compare-busy.txt"; fail "compare of oversubscribed runs: exit $rc, expected 0"; }
"$k25comm" compare "$work/nvlink-busy.json" "$work/pcie-busy.json" --judge-oversubscribed >/dev/null && rc=0 ||
  rc=$?
[ "$rc" -eq 1 ] || fail "compare --judge-oversubscribed: exit $rc, expected 1"
echo "ok: nightly: bad arguments exit 2, one headline, named plots, oversubscribed runs"
