#!/bin/sh
# predict's measured path by AllReduce backend, end to end on the host transport: `k25comm --modes eager,decode
# --gaps-from capture.json --allreduce-backends mpi,oneshot` on 2 ranks replays the fixture capture's step with
# both backends, and `k25comm predict capture.json --with report.json --backend oneshot` takes oneshot's decode
# rows as the alternative: one figure, "measured" with the base's shape, the label naming the backend. An unknown
# backend and --backend on a file that is not a replay report are refused (exit 2).
# Usage: backends_measured_cli.sh MPIEXEC K25COMM SOURCE_DIR OUT_DIR
set -eu
mpiexec=$1 k25comm=$2 source=$3 out=$4
rm -rf "$out"
mkdir -p "$out"
data=$source/tests/predict/data
"$mpiexec" -np 2 --oversubscribe "$k25comm" --sizes "$source/tools/bench/predict-kimi4.yaml" --tokens 1 \
  --iters 5 --time-budget 1 --modes eager,decode --gaps-from "$data/capture.json" \
  --allreduce-backends mpi,oneshot --out "$out/replay" >"$out/replay.log" 2>&1 || { cat "$out/replay.log"; exit 1; }
"$k25comm" predict "$data/capture.json" --with "$out/replay/report.json" --backend oneshot --no-plots \
  --out "$out/predict" >"$out/predict.log" 2>&1 || { cat "$out/predict.log"; exit 1; }
cat "$out/predict.log"
grep -q "on replay oneshot: TPOT at C=1 12.0 -> [0-9.]* ms ([-+0-9]* %) \[predicted, measured with the base's shape: replay oneshot's decode mode ran this base's gaps and skew" \
  "$out/predict.log" || { echo "FAILED: oneshot's rows not taken as measured, one figure"; exit 1; }
python3 - "$out/predict/predict.json" "$out/replay/report.json" <<'PY'
import json, sys
predict, replay = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
text = json.dumps(predict)
oneshot = [r for r in replay["backend_results"] if r["backend"] == "oneshot" and r["mode"] == "decode"]
assert oneshot and oneshot[0]["wrong"] == 0, oneshot
assert "replay oneshot" in text, "the alternative is not named after its backend"
print("ok: predict took oneshot's decode rows")
PY
if "$k25comm" predict "$data/capture.json" --with "$out/replay/report.json" --backend twoshot --no-plots \
  --out "$out/bad" >"$out/bad.log" 2>&1; then
  echo "FAILED: an unknown backend was accepted"; exit 1
fi
grep -q "no rows of that AllReduce backend (it has mpi, oneshot)" "$out/bad.log" || { cat "$out/bad.log"; exit 1; }
echo "backends_measured_cli: ok"
