#!/bin/bash
# The decode timing mode on the host transport: configs/smoke-decode.yaml (eager and decode) checked by
# check_decode.py; then --gaps-from a serve report made from that run (its report.json with a serve level of
# TPOT 50 ms at concurrency 1), whose compute per layer must be (50 ms - the run's step communication) / 4
# layers; then --gaps-from refusals (exit 2).
# usage: decode_check.sh MPIRUN RANKS K25COMM SOURCE_DIR OUTDIR PYTHON
set -euo pipefail
mpirun=$1 ranks=$2 k25comm=$3 src=$4 out=$5 python=$6
config=$src/configs/smoke-decode.yaml
check=$src/tests/mpi/check_decode.py
rm -rf "$out" && mkdir -p "$out"
"$mpirun" -np "$ranks" --oversubscribe "$k25comm" --sizes "$config" --out "$out/run" | tee "$out/run.txt"
"$python" "$check" "$out/run" --ranks "$ranks" --console "$out/run.txt"

# A serve report: the run's own report with one serve level (the shape of tests/analysis/data/pcie-report.json).
layer_gap=$("$python" - "$out/run/report.json" "$src/tests/analysis/data/pcie-report.json" "$out/serve.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
level = json.load(open(sys.argv[2]))["serve"]["levels"][0]
level["concurrency"] = 1
level["tpot_ms"]["p50"] = 50.0
report["serve"]["levels"] = [level]
json.dump(report, open(sys.argv[3], "w"))
step = {(r["phase"], r["mode"]): r["step_us"]["p50"] for r in report["results"] if r["tokens"] == 1}
comm_ms = (step[("allreduce", "eager")] + step[("dispatch", "eager")] + step[("combine", "eager")]) / 1000
print(repr((50.0 - comm_ms) * 1000 / 4))
PY
)
"$mpirun" -np "$ranks" --oversubscribe "$k25comm" --sizes "$config" --out "$out/gaps" --gaps-from "$out/serve.json" \
  | tee "$out/gaps.txt"
"$python" "$check" "$out/gaps" --ranks "$ranks" --console "$out/gaps.txt" --layer-gap-us "$layer_gap" \
  --expect-note "decode gaps from $out/serve.json: TPOT 50.000 ms at concurrency 1"

# Refusals, before anything runs: a report whose communication exceeds its TPOT, and no decode mode asked for.
set +e
"$k25comm" --sizes "$config" --dry-run --gaps-from "$src/tests/analysis/data/pcie-report.json" >"$out/refuse1.txt" 2>&1
rc1=$?
"$k25comm" --sizes "$config" --dry-run --modes eager --gaps-from "$out/serve.json" >"$out/refuse2.txt" 2>&1
rc2=$?
set -e
[ "$rc1" = 2 ] && grep -q "is not shorter than the TPOT" "$out/refuse1.txt" || { echo "refusal 1: rc $rc1"; cat "$out/refuse1.txt"; exit 1; }
[ "$rc2" = 2 ] && grep -q "no decode mode is asked for" "$out/refuse2.txt" || { echo "refusal 2: rc $rc2"; cat "$out/refuse2.txt"; exit 1; }
echo "decode_check: passed"
