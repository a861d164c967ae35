#!/bin/bash
# capture.json read back by every reader, on the file the current `k25comm capture` wrote (never a hand-made one):
# predict's base, --gaps-from (the decode mode's shape, shown by a dry run), doctor --capture (the backends that
# ran) and tools/plot-capture (each field it names is one that capture.json or its CSVs hold); then one member
# renamed in the file fails predict's and --gaps-from's reading, naming the member.
# usage: document_readers_check.sh K25COMM SOURCE_DIR TRACE_FIXTURES OUT_DIR
set -u
k25comm=$1 src=$2 traces=$3 out=$4
. "$(dirname "$0")/check_setup.sh"
capture=$out/capture/capture.json
"$k25comm" capture "$traces/sglang-c10d-tp2" --model "$src/configs/smoke.yaml" --replay "$out/replay/report.json" \
  --serve "$src/tests/analysis/data/pcie-report.json" --no-plots --out "$out/capture" >"$out/capture.log" 2>&1 ||
  { cat "$out/capture.log"; fail "k25comm capture"; }

# --extrapolate: the fixture's AllReduce (512 B) lies below nvlink.csv's sizes, and a predict that refuses every level
# exits 1.
"$k25comm" predict "$capture" --with "$src/tests/predict/data/nvlink.csv" --extrapolate --no-plots --out "$out/predict" \
  >"$out/predict.log" 2>&1 || { cat "$out/predict.log"; fail "predict of the capture"; }
"$python" - "$out/predict/predict.json" <<'PY' || fail "predict.json's base"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["base"]["format"] == "capture.json" and p["base"]["levels"], p["base"]
print("ok: predict reads the capture as its base")
PY

"$k25comm" --sizes "$src/configs/smoke.yaml" --modes eager,decode --gaps-from "$capture" --dry-run \
  >"$out/gaps.log" 2>&1 || { cat "$out/gaps.log"; fail "--gaps-from the capture"; }
grep -qF "# decode gaps and arrivals from $capture: AllReduce at batch 1: " "$out/gaps.log" ||
  { cat "$out/gaps.log"; fail "--gaps-from does not say the capture's shape"; }
echo "ok: --gaps-from reads the capture's shape"

"$k25comm" doctor --capture "$capture" --no-measure --no-plots --out "$out/doctor" >"$out/doctor.log" 2>&1 ||
  { cat "$out/doctor.log"; fail "doctor --capture"; }
"$python" - "$out/doctor/doctor.json" <<'PY' || fail "doctor.json's backends"
import json, sys
b = json.load(open(sys.argv[1]))["backends"]
assert b["status"].startswith("read") and b["runs"], b
print("ok: doctor reads the backends that ran")
PY

"$python" "$src/tests/common/document_fields.py" "$src/tools/plot-capture" --json "$capture" \
  --csv "$out/capture/capture-ops.csv" "$out/capture/capture-steps.csv" ||
  fail "tools/plot-capture names a field the writer does not write"

# The join's transfer_us renamed: predict and --gaps-from refuse the file, naming the member (exit 2).
"$python" - "$capture" "$out/renamed.json" <<'PY' || fail "renaming a member"
import json, sys
c = json.load(open(sys.argv[1]))
g = c["trace"]["join"]["groups"][0]
g["transfer_usec"] = g.pop("transfer_us")
json.dump(c, open(sys.argv[2], "w"))
PY
why="$out/renamed.json: capture.json trace.join.groups[0]: no member 'transfer_us'"
"$k25comm" predict "$out/renamed.json" --with "$src/tests/predict/data/nvlink.csv" --no-plots \
  --out "$out/predict-renamed" >"$out/predict-renamed.log" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -qF "$why" "$out/predict-renamed.log" ||
  { cat "$out/predict-renamed.log"; fail "predict of a renamed member: exit $rc"; }
"$k25comm" --sizes "$src/configs/smoke.yaml" --modes eager,decode --gaps-from "$out/renamed.json" --dry-run \
  >"$out/gaps-renamed.log" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -qF "$why" "$out/gaps-renamed.log" ||
  { cat "$out/gaps-renamed.log"; fail "--gaps-from of a renamed member: exit $rc"; }
echo "ok: every reader reads the capture the current writer wrote"
