#!/bin/bash
# The AllReduce backends over documents, from data/pcie-report.json with oneshot and twoshot rows added:
#   compare     a oneshot regression is found and named by backend (exit 1); the same reports compare clean (0); a
#               report before backends matches the default rows (the others listed missing)
#   nightly     tools/nightly against a baseline with backends: a oneshot regression exits 1 naming [oneshot]
#   merge       k25comm report --backends-from: a tools/nccl-sweep variant joins the table as "nccl NCCL_PROTO=LL",
#               into a new folder, with report.md's section, results.csv's backend column and the backends plot;
#               a variant not like for like (fp32) exits 2
#   bench       tools/bench-backends --report: the figures in their band exit 0; a backend out of band exits 1 and
#               flags its row; a backend faster than the link's bound exits 1
# usage: backends_check.sh SOURCE_DIR K25COMM WORK_DIR CASE
set -uo pipefail
src=$1 k25comm=$2 work=$3 case_name=$4
data=$src/tests/analysis/data
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL ($case_name): $*"; exit 1; }
# make_report OUT [ONESHOT_FACTOR] [EXTRA_JSON_EDIT]: pcie-report.json with oneshot (0.3x nccl's times, times
# ONESHOT_FACTOR) and twoshot (0.6x) rows at every AllReduce point, schema 4.
make_report() {
  mkdir -p "$(dirname "$1")"
  python3 - "$data/pcie-report.json" "$1" "${2:-1}" "${3:-}" <<'PY'
import copy, json, sys
report = json.load(open(sys.argv[1]))
factor, edit = float(sys.argv[3]), sys.argv[4]
report["schema_version"] = 4
rows = []
for r in report["results"]:
    r["backend"] = "nccl"
    if r["phase"] != "allreduce":
        continue
    for backend, scale in (("oneshot", 0.3 * factor), ("twoshot", 0.6)):
        row = copy.deepcopy(r)
        row["backend"] = backend
        for key in ("step_us", "op_us"):
            row[key] = {k: v * scale for k, v in r[key].items()}
        rows.append(row)
report["backend_results"] = rows
if edit == "fp32":
    for r in report["results"] + rows:
        r["dtype"] = "fp32"
if edit == "proto-ll":
    report["run"]["env"]["NCCL_PROTO"] = "LL"
    report["backend_results"] = []
if edit == "bound":  # a doctor's matrix whose slowest pair moves 1 GB/s: every op is faster than that
    report["topology"]["nodes"] = [{"p2p": {"directions": [{"src": 0, "dst": 1, "push_gbps": 0.001}]}}]
json.dump(report, open(sys.argv[2], "w"))
PY
}
case "$case_name" in
compare)
  make_report "$work/base.json"
  make_report "$work/slower.json" 2
  "$k25comm" compare "$work/base.json" "$work/base.json" >"$work/same.txt" 2>&1 || fail "the same reports: exit $?"
  grep -q "allreduce T=1 eager \[oneshot\]" "$work/same.txt" || fail "no oneshot row in the comparison"
  "$k25comm" compare "$work/base.json" "$work/slower.json" >"$work/slower.txt" 2>&1
  rc=$?
  cat "$work/slower.txt"
  [ "$rc" = 1 ] || fail "a oneshot regression: exit $rc, expected 1"
  grep -qE "allreduce T=1 eager \[oneshot\] .*REGRESSION" "$work/slower.txt" || fail "the regression is not named by backend"
  ! grep -qE "allreduce T=1 eager \[twoshot\] .*REGRESSION" "$work/slower.txt" || fail "twoshot called a regression"
  "$k25comm" compare "$data/pcie-report.json" "$work/base.json" --allow-missing >"$work/old.txt" 2>&1 ||
    fail "a report before backends against one with them: exit $?"
  grep -qE "^ *allreduce T=1 eager +step p50 us .* same" "$work/old.txt" || fail "the default rows did not match"
  grep -q "allreduce T=1 eager \[oneshot\] (new only)" "$work/old.txt" || fail "the new backends are not listed missing"
  ;;
nightly)
  make_report "$work/baseline.json"
  make_report "$work/slower.json" 2
  printf 'model: {name: kimi-k2.5}\n' >"$work/config.yaml"
  nightly() {  # NAME REPORT: tools/nightly with the stand-in launcher putting REPORT as the run's report.json
    K25_FAKE_REPORT=$2 "$src/tools/nightly" --config "$work/config.yaml" --baseline "$work/baseline.json" --np 8 \
      --out-root "$work/$1" --mpirun "$src/tests/analysis/fake_mpirun.sh" --k25comm "$k25comm" --no-plots \
      >"$work/$1.log" 2>&1
  }
  nightly same "$work/baseline.json" || { cat "$work/same.log"; fail "the same run: exit $?"; }
  grep -q "allreduce T=1 eager \[oneshot\]" "$work/same/latest/compare.txt" || fail "no oneshot row in compare.txt"
  nightly slower "$work/slower.json"
  rc=$?
  cat "$work/slower.log"
  [ "$rc" = 1 ] || fail "a oneshot regression: exit $rc, expected 1"
  grep -qE "allreduce T=1 eager \[oneshot\] .*REGRESSION" "$work/slower/latest/compare.txt" ||
    fail "compare.txt does not name the oneshot regression"
  ;;
merge)
  make_report "$work/a/report.json" 1
  make_report "$work/sweep/proto-ll/report.json" 1 proto-ll
  K25_PLOT_SCRIPT=$src/tools/plot-report "$k25comm" report "$work/a/report.json" \
    --backends-from "$work/sweep/proto-ll/report.json" >"$work/merge.log" 2>&1 || { cat "$work/merge.log"; fail "the merge failed"; }
  cat "$work/merge.log"
  out=$work/a/with-backends
  grep -q "merged the AllReduce rows of $work/sweep/proto-ll/report.json as backends into $out" "$work/merge.log" ||
    fail "the merge does not say where it wrote"
  python3 - "$out/report.json" <<'PY' || fail "merged report.json"
import json, sys
report = json.load(open(sys.argv[1]))
names = {r["backend"] for r in report["backend_results"]}
assert names == {"oneshot", "twoshot", "nccl NCCL_PROTO=LL"}, names
table = report["allreduce_backends"]["tables"][0]
assert [r["backend"] for r in table["rows"]] == ["nccl", "oneshot", "twoshot", "nccl NCCL_PROTO=LL"], table["rows"]
print("ok: merged backends", sorted(names))
PY
  grep -q "| nccl NCCL_PROTO=LL |" "$out/report.md" || fail "report.md lacks the variant's row"
  grep -q "^allreduce,nccl NCCL_PROTO=LL," "$out/results.csv" || fail "results.csv lacks the variant's backend"
  if /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
    [ -s "$out/allreduce_backends.png" ] || fail "no allreduce_backends.png"
  fi
  make_report "$work/fp32/report.json" 1 fp32
  "$k25comm" report "$work/a/report.json" --backends-from "$work/fp32/report.json" --no-plots --out "$work/bad" \
    >"$work/bad.log" 2>&1
  rc=$?
  cat "$work/bad.log"
  [ "$rc" = 2 ] || fail "a variant in fp32: exit $rc, expected 2"
  grep -q "not like for like: dtype differs (this report bf16, it fp32)" "$work/bad.log" || fail "the refusal's reason"
  ;;
bench)
  make_report "$work/in.json"
  "$src/tools/bench-backends" --report "$work/in.json" --band 0.1,2 >"$work/in.txt" 2>&1
  rc=$?
  cat "$work/in.txt"
  [ "$rc" = 0 ] || fail "in band: exit $rc"
  grep -qE "^ +14336 .*\(0\.30x\)" "$work/in.txt" || fail "no ratio per size"
  "$src/tools/bench-backends" --report "$work/in.json" --band 0.5,2 >"$work/out.txt" 2>&1
  rc=$?
  cat "$work/out.txt"
  [ "$rc" = 1 ] || fail "oneshot at 0.30x against a band 0.5..2: exit $rc, expected 1"
  grep -qE "\(0\.30x\) OUT" "$work/out.txt" || fail "the row out of band is not flagged"
  make_report "$work/bound.json" 1 bound
  "$src/tools/bench-backends" --report "$work/bound.json" --band 0.1,2 >"$work/bound.txt" 2>&1
  rc=$?
  cat "$work/bound.txt"
  [ "$rc" = 1 ] || fail "ops faster than the link's bound: exit $rc, expected 1"
  grep -q "<BOUND" "$work/bound.txt" || fail "the row under the bound is not flagged"
  ;;
*)
  fail "unknown case"
  ;;
esac
echo "ok: backends_check $case_name"
