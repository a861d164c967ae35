#!/bin/sh
# The what-if measured with the base's shape, end to end on the host transport: `k25comm --modes eager,decode
# --gaps-from capture.json` on 2 ranks replays the fixture capture's step (its gap and its ranks' arrivals), its
# report names that shape, and `k25comm predict` of the capture with that report takes it as measured.
# Usage: measured_shape_cli.sh MPIEXEC K25COMM SOURCE_DIR OUT_DIR
set -eu
mpiexec=$1 k25comm=$2 source=$3 out=$4
rm -rf "$out"
mkdir -p "$out"
data=$source/tests/predict/data
# Kimi's hidden size (14,336 B at one token, the capture's size), 4 layers: a step of 8 ops.
"$mpiexec" -np 2 --oversubscribe "$k25comm" --sizes "$source/tools/bench/predict-kimi4.yaml" --tokens 1 \
  --iters 5 --time-budget 1 --modes eager,decode --gaps-from "$data/capture.json" --out "$out/replay" \
  >"$out/replay.log" 2>&1 || { cat "$out/replay.log"; exit 1; }
grep -q "decode gaps and arrivals from $data/capture.json: AllReduce at batch 1: 45.0 us before each op, 2 ranks' arrivals" \
  "$out/replay.log" || { echo "FAILED: the run does not say where its gaps came from"; cat "$out/replay.log"; exit 1; }
"$k25comm" predict "$data/capture.json" --with "$out/replay/report.json" --label candidate --no-plots \
  --out "$out/predict" >"$out/predict.log" 2>&1 || { cat "$out/predict.log"; exit 1; }
cat "$out/predict.log"
grep -q "on candidate: TPOT at C=1 12.0 -> .* \[predicted, measured with the base's shape: candidate's decode mode ran this base's gaps and skew" \
  "$out/predict.log" || { echo "FAILED: not taken as measured with the base's shape"; exit 1; }
echo "measured_shape_cli: ok"
