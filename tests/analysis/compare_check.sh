#!/bin/bash
# `k25comm compare` from the command line: a run in another dtype is not comparable (exit 2, the field named),
# --allow-mismatch compares it anyway, a point missing in the new run fails (exit 1), and --format csv/json.
# usage: compare_check.sh K25COMM DATA_DIR WORK_DIR
set -euo pipefail
k25comm=$1 data=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
python3 - "$data/pcie-report.json" "$work" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
fp32 = json.loads(json.dumps(report))
for r in fp32["results"]:
    if r["phase"] == "allreduce":
        r["dtype"] = "fp32"
json.dump(fp32, open(sys.argv[2] + "/fp32.json", "w"))
fewer = json.loads(json.dumps(report))
fewer["results"] = [r for r in fewer["results"] if r["tokens"] != 64]
json.dump(fewer, open(sys.argv[2] + "/fewer.json", "w"))
PY
expect() {  # CODE TEXT ARGS...
  local want=$1 text=$2
  shift 2
  set +e
  output=$("$k25comm" compare "$@" 2>&1)
  local got=$?
  set -e
  echo "$output"
  [ "$got" -eq "$want" ] || fail "compare $*: exit $got, expected $want"
  grep -qF -- "$text" <<<"$output" || fail "compare $*: output does not mention '$text'"
}
expect 2 "dtype differs (base bf16, new fp32) at 8 points" "$data/pcie-report.json" "$work/fp32.json"
expect 0 "note: allowed: dtype differs" "$data/pcie-report.json" "$work/fp32.json" --allow-mismatch dtype
expect 1 "missing points: allreduce T=64 eager (base only), allreduce T=64 graph (base only)" \
  "$data/pcie-report.json" "$work/fewer.json"
expect 0 "(allowed by --allow-missing)" "$data/pcie-report.json" "$work/fewer.json" --allow-missing
expect 0 "point,figure,base,new,ratio,spread,verdict" "$data/pcie-report.json" "$data/pcie-report.json" --format csv
expect 1 '"failed": true' "$data/pcie-report.json" "$work/fewer.json" --format json
echo "ok: compare guards, missing points and formats"
