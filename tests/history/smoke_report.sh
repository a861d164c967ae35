#!/bin/bash
# A real report.json for the history's fixture nights: this build's k25comm on configs/smoke.yaml, 2 ranks on the
# host transport, no plots.
# usage: smoke_report.sh SOURCE_DIR K25COMM OUT_DIR
set -euo pipefail
src=$1 k25comm=$2 out=$3
rm -rf "$out"
K25COMM=$k25comm "$src/tools/mpirun-k25comm" -np 2 --sizes "$src/configs/smoke.yaml" --backend mpi --no-plots \
  --out "$out" >"$out.log" 2>&1 || { cat "$out.log"; echo "FAIL: the smoke run failed"; exit 1; }
[ -s "$out/report.json" ] || { cat "$out.log"; echo "FAIL: no $out/report.json"; exit 1; }
echo "PASS: $out/report.json"
