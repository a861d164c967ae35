#!/bin/sh
# A new user's serve + replay base, as docs/predict.md gives it, with the replay in the decode mode it recommends:
# `k25comm --modes eager,decode` on 2 ranks (the host transport), a serve run against the fake server of
# tests/serve, `k25comm report --serve` (the merge), then `k25comm predict` of the merged report. The first law
# first: with the replay's own eager burst as the alternative the additive end is the base's TPOT at every level,
# and with the replay itself (its decode mode: the base's shape) the one figure is; then the headline carries the
# base's caveat (host transport). Before issue 51 every level was refused ("the base has no communication at this
# batch") and predict exited 0.
# Usage: serve_decode_base_cli.sh MPIEXEC K25COMM SOURCE_DIR OUT_DIR
set -eu
mpiexec=$1 k25comm=$2 source=$3 out=$4
rm -rf "$out"
mkdir -p "$out"
config=$source/configs/smoke-decode.yaml
"$mpiexec" -np 2 --oversubscribe "$k25comm" --sizes "$config" --phases allreduce --out "$out/comm" \
  >"$out/comm.log" 2>&1 || { cat "$out/comm.log"; exit 1; }
python3 "$source/tests/serve/fake_openai_server.py" --port 0 --itl-ms 5 --ttft-ms 10 --max-seconds 120 \
  >"$out/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
port=""
for _ in $(seq 1 50); do
  port=$(awk '/^PORT/ {print $2}' "$out/server.log")
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { echo "FAILED: the fake server did not start"; cat "$out/server.log"; exit 1; }
"$k25comm" --sizes "$config" --phases serve --endpoint "http://127.0.0.1:$port" --concurrency 1,4 --requests 8 \
  --max-tokens 8 --out "$out/serve" >"$out/serve.log" 2>&1 || { cat "$out/serve.log"; exit 1; }
"$k25comm" report "$out/comm/report.json" --serve "$out/serve/report.json" --no-plots --out "$out/merged" \
  >"$out/merge.log" 2>&1 || { cat "$out/merge.log"; exit 1; }
# The replay's own eager burst, its decode results left out: the base's own link, modelled.
python3 - "$out/comm/report.json" "$out/eager-report.json" <<'EOF'
import json, sys
report = json.load(open(sys.argv[1]))
report["results"] = [r for r in report["results"] if r["mode"] == "eager"]
json.dump(report, open(sys.argv[2], "w"))
EOF
"$k25comm" predict "$out/merged/report.json" --with "$out/eager-report.json" --label own-eager \
  --with "$out/comm/report.json" --label own-decode --no-plots --out "$out/predict" >"$out/predict.log" 2>&1 ||
  { cat "$out/predict.log"; exit 1; }
cat "$out/predict.log"
python3 - "$out/predict/predict.json" <<'EOF'
import json, sys
predict = json.load(open(sys.argv[1]))
failures = []
for alternative, end, method in (("own-eager", 1, "additive"), ("own-decode", 0, "measured-shape")):
    levels = [a for a in predict["alternatives"] if a["label"] == alternative][0]["levels"]
    if not levels:
        failures.append(f"{alternative}: no level")
    for level in levels:
        predicted = level["predicted"]
        if predicted is None:
            failures.append(f"{alternative} C={level['batch']} refused: {level['refused']}")
            continue
        step, base = predicted["step_us"][end], level["base_step_us"]
        if abs(step - base) > 1e-6 * base:
            failures.append(f"{alternative} C={level['batch']}: {method} end {step} us, the base's TPOT {base} us")
        if predicted[("low", "high")[end]] != method:
            failures.append(f"{alternative} C={level['batch']}: predicted {predicted['method']}, not {method}")
kinds = predict["base"]["levels"][0]["kinds"]
if not kinds or kinds[0]["join"] is None:
    failures.append(f"the base's first level has no communication split into wait and transfer: {kinds}")
for failure in failures:
    print("FAILED (the first law): " + failure)
sys.exit(1 if failures else 0)
EOF
grep -q "on own-eager: TPOT at C=1 .* \[predicted, .*; the base: host transport" \
  "$out/predict.log" || { echo "FAILED: the headline does not carry the base's host transport"; exit 1; }
echo "serve_decode_base_cli: ok"
