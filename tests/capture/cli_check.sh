#!/bin/bash
# `k25comm capture` end to end: a real k25comm replay run (smoke model, host transport, one rank) as --replay, a
# report with serve levels as --serve, --tpot, plots, --emit-config (the captured step as a model.sequence that
# k25comm loads, plans and replays; refused with exit 2, after every other output, where the model does not fit
# the sizes, and before reading anything without --model), and two dump directories at once (three
# communicators).
# usage: cli_check.sh K25COMM SOURCE_DIR OUT_DIR
set -u
k25comm=$1 src=$2 out=$3
data=$src/tests/capture/data
. "$(dirname "$0")/check_setup.sh"
"$k25comm" capture "$data/tp2-v40" --model "$src/configs/smoke.yaml" --replay "$out/replay/report.json" \
  --serve "$src/tests/analysis/data/pcie-report.json" --tpot 12.5 --emit-config "$out/step.yaml" \
  --out "$out/capture" >"$out/capture.log" 2>&1
rc=$?
cat "$out/capture.log"
[ "$rc" = 0 ] || fail "exit code $rc with --emit-config, expected 0"
grep -qF "wrote $out/step.yaml: 9 ops per step (8 x allreduce 512 B/token, 1 x allgather 2000 B/token), token counts 1, 2, 4; replay: mpirun -np 2 k25comm --sizes $out/step.yaml" \
  "$out/capture.log" || fail "no --emit-config line"
grep -qxF "  sequence:" "$out/step.yaml" || fail "step.yaml has no model.sequence"
grep -qxF "    - {kind: \"allreduce\", dtype: \"bf16\", bytes_per_token: 512, count: 8}" "$out/step.yaml" &&
  grep -qxF "    - {kind: \"allgather\", dtype: \"bf16\", bytes_per_token: 2000, count: 1}" "$out/step.yaml" &&
  grep -qxF "  tokens: [1, 2, 4]" "$out/step.yaml" && grep -qxF '  phases: ["allreduce"]' "$out/step.yaml" ||
  { cat "$out/step.yaml"; fail "step.yaml does not hold the captured step"; }
# The emitted config runs: 2 ranks of the host transport replay the 9-op step at the captured token counts.
K25COMM=$k25comm "$src/tools/mpirun-k25comm" -np 2 --sizes "$out/step.yaml" --backend mpi --iters 2 --warmup 1 \
  --op-iters 1 --time-budget 1 --no-trace --out "$out/step-replay" >"$out/step-replay.log" 2>&1 ||
  { cat "$out/step-replay.log"; fail "the emitted config did not run"; }
"$python" - "$out/step-replay/report.json" <<'PY' || fail "the emitted config's replay"
import json, sys
results = json.load(open(sys.argv[1]))["results"]
got = sorted((r["phase"], r["tokens"], r["ops_per_step"], r["bytes_per_op"]) for r in results)
want = sorted([("allreduce", t, 8, 512 * t) for t in (1, 2, 4)] + [("allgather", t, 1, 2000 * t) for t in (1, 2, 4)])
assert got == want, got
assert all(r["wrong"] == 0 for r in results)
print("ok: the emitted config replays the captured step")
PY
for f in capture.json capture.md capture-ops.csv; do [ -s "$out/capture/$f" ] || fail "$f missing"; done

"$python" - "$out/capture" <<'PY' || fail "capture.json check"
import json, os, sys
out = sys.argv[1]
c = json.load(open(os.path.join(out, "capture.json")))
assert c["schema_version"] == 3
comm = c["communicators"][0]
assert comm["step"]["pattern_text"] == "AllReduce x 8, AllGather x 1", comm["step"]
assert comm["step"]["decode_steps"] == 7 and comm["step"]["prefill_steps"] == 1
rows = [r for r in c["replay"]["ops"] if r["bytes"] == 512 and r["phase"] == "decode"]
assert rows and rows[0]["replay"], c["replay"]
match = rows[0]["replay"][0]
assert match["mode"] == "eager" and match["tokens"] == 1 and match["op_us_p50"] > 0, match
assert abs(match["ratio"] - rows[0]["captured_us_p50"] / match["op_us_p50"]) < 1e-9
assert c["replay"]["steps"][0]["replay"], c["replay"]["steps"]
att = c["attribution"]
serve_rows = [r for r in att if r["tpot_source"] == "serve p50"]
assert [r["concurrency"] for r in serve_rows] == [1, 2, 8, 32, 128], serve_rows
assert abs(serve_rows[0]["captured_comm_ms"] - 0.198) < 1e-12 and abs(serve_rows[0]["captured_share"] - 0.198 / 12.4) < 1e-12
assert serve_rows[0]["replay"] and serve_rows[0]["replay"][0]["mode"] == "eager"
assert serve_rows[2]["captured_comm_ms"] is None and "8 tokens" in serve_rows[2]["captured_reason"]
tpot = [r for r in att if r["tpot_source"] == "--tpot"][0]
assert abs(tpot["captured_comm_ms"] - 0.207) < 1e-12
assert c["emit_config"] == {"requested": True, "written": True, "path": c["emit_config"]["path"], "reason": ""}, \
    c["emit_config"]
lines = open(os.path.join(out, "capture-ops.csv")).read().splitlines()
assert len(lines) == 85 and lines[0].startswith("communicator,position,kind"), lines[:2]
md = open(os.path.join(out, "capture.md")).read()
for text in ("## Captured vs replayed", "## Live attribution", "**Decode step:** AllReduce x 8, AllGather x 1"):
    assert text in md, text
print("ok: capture.json, capture-ops.csv, capture.md")
PY
check_plots "$out/capture" capture_exec_time.png capture_step_composition.png && echo "ok: the capture plots"

# A model whose bytes per token do not fit the captured sizes: every other output, then exit 2 and no config.
"$k25comm" capture "$data/tp2-v40" --model "$src/configs/kimi.yaml" --emit-config "$out/kimi-step.yaml" --no-plots \
  --out "$out/kimi" >"$out/kimi.log" 2>&1
rc=$?
[ "$rc" = 2 ] || { cat "$out/kimi.log"; fail "exit code $rc with a model that does not fit, expected 2"; }
grep -qF "k25comm: error: --emit-config $out/kimi-step.yaml: not written: communicator 0x7f8c496ae9f661: a decode step's largest AllReduce (512 B) is not a whole number of tokens of 14336 B" \
  "$out/kimi.log" || { cat "$out/kimi.log"; fail "no reason for the config not written"; }
[ ! -e "$out/kimi-step.yaml" ] && [ -s "$out/kimi/capture.json" ] || fail "wrote the config, or not the capture"
grep -q '"written": false' "$out/kimi/capture.json" || fail "capture.json does not say the config was not written"
# Without --model: refused before anything is read or written.
"$k25comm" capture "$data/tp2-v40" --emit-config "$out/none.yaml" --out "$out/none" >"$out/none.log" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -qF "k25comm: error: --emit-config needs --model CONFIG" "$out/none.log" && [ ! -e "$out/none" ] ||
  { cat "$out/none.log"; fail "--emit-config without --model: exit $rc"; }

"$k25comm" capture "$data/tp2-v40" "$data/two-comms-v42" --no-plots --out "$out/two" >"$out/two.log" 2>&1 ||
  { cat "$out/two.log"; fail "two directories"; }
grep -q "capture: 4 file(s), 263 collective and 16 P2P records, 3 communicator(s)" "$out/two.log" ||
  { cat "$out/two.log"; fail "two directories: wrong totals"; }
echo "ok: end to end"
