#!/bin/bash
# `k25comm capture` on profiler traces end to end: the SGLang c10d fixture (sizes from the trace) with a real
# k25comm replay run (--replay), a serve report (--serve), --emit-config and plots; capture.md opens with the
# answer; capture-steps.csv holds every step; the emitted config loads and replays the trace's step. Then the vLLM
# TP8 fixture with --model (sizes from the model, padded), and an Inspector dump and a trace read together.
# usage: trace_cli_check.sh K25COMM SOURCE_DIR TRACE_FIXTURES OUT_DIR
set -u
k25comm=$1 src=$2 traces=$3 out=$4
. "$(dirname "$0")/check_setup.sh"
"$k25comm" capture "$traces/sglang-c10d-tp2" --model "$src/configs/smoke.yaml" --replay "$out/replay/report.json" \
  --serve "$src/tests/analysis/data/pcie-report.json" --emit-config "$out/step.yaml" --out "$out/capture" \
  >"$out/capture.log" 2>&1
rc=$?
cat "$out/capture.log"
[ "$rc" = 0 ] || fail "exit code $rc, expected 0"
# Per step 8 x (GEMM 2 + AllReduce 2) + AllGather 3 = 35 us of kernels, 19 of them collectives: 54.3 %.
grep -qF "  trace: decode step at batch 1: 43.0 us (p50 of 4 steps over 2 ranks); communication 19.0 us = 44.2 % of the wall, 54.3 % of kernel time" \
  "$out/capture.log" || fail "no headline on the console"
grep -qF "wrote $out/step.yaml: 9 ops per step (8 x allreduce 512 B/token, 1 x allgather 2000 B/token), token counts 1, 2, 4" \
  "$out/capture.log" || fail "no --emit-config line"
K25COMM=$k25comm "$src/tools/mpirun-k25comm" -np 2 --sizes "$out/step.yaml" --backend mpi --iters 2 --warmup 1 \
  --op-iters 1 --time-budget 1 --no-trace --out "$out/step-replay" >"$out/step-replay.log" 2>&1 ||
  { cat "$out/step-replay.log"; fail "the config emitted from a trace did not run"; }

"$python" - "$out/capture" <<'PY' || fail "capture.json check"
import csv, json, os, sys
out = sys.argv[1]
c = json.load(open(os.path.join(out, "capture.json")))
assert c["schema_version"] == 3
assert [f["format"] for f in c["capture"]["inputs"]] == ["kineto", "kineto"], c["capture"]["inputs"]
t = c["trace"]
assert t["steps"]["method"] == "engine_marks" and t["steps"]["count"] == 12, t["steps"]
g1 = [g for g in t["groups"] if g["rank"] is None and g["batch"] == 1][0]
assert abs(g1["wall_us"]["p50"] - 43.0) < 1e-9 and abs(g1["comm_share"] - 19.0 / 43.0) < 1e-9, g1
ar = [k for k in g1["kinds"] if k["kind"] == "AllReduce"][0]
assert ar["bytes"] == 512 and ar["bytes_source"] == "trace" and ar["launch"] == "eager", ar
# The replay: per (kind, bytes, mode) the trace's per-op p50 (2.0 us) next to the replay's eager one.
rows = [r for r in c["replay"]["ops"] if r["bytes"] == 512 and r["phase"] == "decode"]
assert rows and rows[0]["mode"] == "eager" and rows[0]["captured_us_p50"] == 2.0, rows
assert [m["mode"] for m in rows[0]["replay"]] == ["eager"], rows[0]
shares = {s["batch"]: s for s in c["replay"]["shares"]}
assert sorted(shares) == [1, 2, 4] and abs(shares[1]["trace_share"] - 19.0 / 43.0) < 1e-9, shares
# The serve report's TPOT at concurrency 1 and 2 next to the trace's step at batch 1 and 2.
att = {r["concurrency"]: r for r in c["attribution"] if r["tpot_source"] == "serve p50"}
assert abs(att[1]["trace_step_ms"] - 0.043) < 1e-12 and abs(att[2]["trace_comm_ms"] - 0.019) < 1e-12, att[1]
assert att[8]["trace_step_ms"] is None
steps = list(csv.DictReader(open(os.path.join(out, "capture-steps.csv"))))
assert len(steps) == 12 and steps[0]["phase"] == "decode" and steps[0]["wall_us"] == "43.000", steps[0]
assert steps[0]["mark"] == "step[DECODE bs=1]" and steps[0]["communication_us"] == "19.000", steps[0]
md = open(os.path.join(out, "capture.md")).read()
assert md.startswith("# k25comm capture\n\n- **decode step at batch 1: 43.0 us"), md[:200]
for text in ("## Trace: where a step's GPU time goes", "### Live join cost across ranks", "## Captured vs replayed",
             "The trace's decode steps next to the replay's attribution"):
    assert text in md, text
print("ok: capture.json, capture-steps.csv, capture.md from a trace")
PY
check_plots "$out/capture" capture_step_classes.png capture_trace_vs_replay.png && echo "ok: the trace plots"

# vLLM TP8 under CUDA graphs with --model: AllReduce sizes from the steps' batches, padded to the capture sizes.
"$k25comm" capture "$traces/vllm-tp8" --model "$src/configs/kimi.yaml" --no-plots --out "$out/vllm" >"$out/vllm.log" 2>&1 ||
  { cat "$out/vllm.log"; fail "vllm-tp8 with --model"; }
"$python" - "$out/vllm/capture.json" <<'PY' || fail "vllm-tp8 sizes"
import json, sys
c = json.load(open(sys.argv[1]))
sizes = {(g["bytes"], g["bytes_source"], g["mode"]) for g in c["communicators"][0]["by_size"] if g["kind"] == "AllReduce"}
assert sizes == {(14336, "model", "graph"), (57344, "model", "graph")}, sizes
assert c["trace"]["sizes"] == {"trace": 0, "model": 44 * 123, "unknown": 44}, c["trace"]["sizes"]
print("ok: model sizes, padded")
PY

# An Inspector dump and a trace in one run: both read, each by its own reader.
"$k25comm" capture "$src/tests/capture/data/tp2-v40" "$traces/nsys-tp2.sqlite" --no-plots --out "$out/mixed" \
  >"$out/mixed.log" 2>&1 || { cat "$out/mixed.log"; fail "an Inspector dump and a trace together"; }
grep -q "capture: 3 file(s), 180 collective and 0 P2P records, 2 communicator(s)" "$out/mixed.log" ||
  { cat "$out/mixed.log"; fail "mixed inputs: wrong totals"; }
echo "ok: traces end to end"
