#!/bin/bash
# `k25comm capture` against real NCCL Inspector output on a GPU host (the H200 test machine); for tools/gpu-checks.
#   1. k25comm (one rank, configs/kimi.yaml, AllReduce + All-to-All) with the Inspector loaded, eager, then graph:
#      capture must find exactly what was issued: per swept size, 122 AllReduces x (warm-up + trials + per-op
#      trials) bursts, the step as "AllReduce x 122" with --model, the All-to-All as Send/Recv where the Inspector
#      reports P2P, and per-op times near k25comm's own. Graph mode: writes down whether replays give records.
#   2. 4 ranks on one GPU (k25comm --emulate-ranks; K25_CAPTURE_EMULATED_RANKS=N for another count, 0 to skip):
#      the capture joins N ranks on every op and finds "AllReduce x 122".
#   3. nccl-tests all_reduce_perf (eager and -G graph), all_gather_perf, sendrecv_perf with the Inspector: the
#      swept sizes found, AllGather and Send/Recv records seen.
#   4. The cost of the Inspector under CUDA graphs (a host callback per replay for kernel timing): nccl-tests
#      -G 100 and k25comm graph mode, each with and without the plugin, per-op time difference.
#   5. Copies the raw dumps and captures to $OUT (inspector-dumps.tar.gz): real fixtures for tests/capture.
# usage: capture_gpu_check.sh K25COMM KIMI_CONFIG [DEVICE_COUNT_EXE]
# env:   K25_INSPECTOR_SO  the Inspector plugin (libnccl-profiler-inspector.so; see README "capture")
#        NCCL_TESTS_DIR    nccl-tests build (bin/all_reduce_perf ...; lib/ added to LD_LIBRARY_PATH); optional
#        OUT               where results go (default ./capture-gpu-out)
# Exits 77 (skipped) without a CUDA device or without the plugin; 1 when a check failed; 0 otherwise.
set -u
k25comm=$1 kimi=$2 device_count=${3:-}
out=${OUT:-$PWD/capture-gpu-out}
so=${K25_INSPECTOR_SO:-}

if [ -n "$device_count" ]; then
  "$device_count" >/dev/null 2>&1 || { echo "SKIPPED: no CUDA device visible"; exit 77; }
else
  nvidia-smi -L >/dev/null 2>&1 || { echo "SKIPPED: no CUDA device visible"; exit 77; }
fi
[ -n "$so" ] && [ -f "$so" ] || { echo "SKIPPED: no Inspector plugin (set K25_INSPECTOR_SO to libnccl-profiler-inspector.so)"; exit 77; }
mkdir -p "$out"
work=$(mktemp -d /tmp/k25-capture-gpu.XXXXXX)
python=$(command -v python3)
tests=${NCCL_TESTS_DIR:-}
[ -n "$tests" ] && [ -d "$tests/lib" ] && export LD_LIBRARY_PATH="$tests/lib:${LD_LIBRARY_PATH:-}"  # libcudart.so.13
failed=0 figures=$work/figures.txt
: >"$figures"
fail() { echo "FAIL: $*"; failed=1; }
note() { echo "$*" | tee -a "$figures"; }

# Runs a command with the Inspector loaded, dumping into $work/dump-NAME: inspector NAME COMMAND...
inspector() {
  local name=$1; shift
  rm -rf "$work/dump-$name"
  env NCCL_PROFILER_PLUGIN="$so" NCCL_INSPECTOR_ENABLE=1 NCCL_INSPECTOR_DUMP_DIR="$work/dump-$name" \
    NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS=1000 NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES=0 \
    NCCL_INSPECTOR_DUMP_VERBOSE=1 NCCL_INSPECTOR_DUMP_COLL_RING_SIZE=16384 NCCL_INSPECTOR_DUMP_P2P_RING_SIZE=16384 \
    "$@" >"$work/$name.log" 2>&1
}

# --- 1. k25comm, one rank, eager then graph -------------------------------------------------------------------
k25_args=(--backend nccl --sizes "$kimi" --phases allreduce,alltoall --tokens 1,8,64 --iters 10 --warmup 2
          --op-iters 3 --time-budget 60 --no-check)
for mode in eager graph; do
  inspector "k25-$mode" "$k25comm" "${k25_args[@]}" --modes "$mode" --out "$work/k25-$mode"
  rc=$?
  [ "$rc" = 0 ] || { tail -20 "$work/k25-$mode.log"; fail "k25comm $mode with the Inspector: exit $rc"; continue; }
  if ! ls "$work/dump-k25-$mode"/*.log >/dev/null 2>&1; then
    note "k25comm $mode: the Inspector wrote no file"
    [ "$mode" = eager ] && fail "k25comm eager: no Inspector output"
    continue
  fi
  "$k25comm" capture "$work/dump-k25-$mode" --model "$kimi" --replay "$work/k25-$mode/report.json" --no-plots \
    --out "$work/capture-k25-$mode" >"$work/capture-k25-$mode.log" 2>&1 ||
    { cat "$work/capture-k25-$mode.log"; fail "capture of k25comm $mode"; continue; }
  cat "$work/capture-k25-$mode.log"
  "$python" - "$work/k25-$mode/report.json" "$work/capture-k25-$mode/capture.json" "$mode" <<'PY' | tee -a "$figures"
import json, sys
report, capture, mode = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
warmup = report["run"]["config"]["sweep"]["warmup"]
comm = max(capture["communicators"], key=lambda c: c["records"]["coll"])
counts = {}
for g in comm["by_size"]:
    if g["kind"] == "AllReduce":
        counts[g["bytes"]] = counts.get(g["bytes"], 0) + g["count"]
ok = True
print(f"k25comm {mode}: records {comm['sampling']['verdict']} ({comm['sampling']['recorded_ops']} of "
      f"{comm['sampling']['expected_ops']}), timing {comm['timing_sources']}, P2P records {comm['records']['p2p']}")
for r in report["results"]:
    if r["phase"] != "allreduce":
        continue
    bursts = warmup + r["iterations"] + (r["op_iterations"] if mode == "eager" else 0)
    want = r["ops_per_step"] * bursts
    got = counts.get(r["bytes_per_op"], 0)
    captured = [g for g in comm["by_size"] if g["kind"] == "AllReduce" and g["bytes"] == r["bytes_per_op"]]
    p50 = max(g["exec_us"]["p50"] for g in captured) if captured else float("nan")
    ratio = p50 / r["op_us"]["p50"] if r["op_us"]["p50"] else float("nan")
    print(f"  {r['bytes_per_op']:>9} B: issued {want} AllReduces ({bursts} bursts), captured {got}; "
          f"Inspector exec p50 {p50:.1f} us vs k25comm op p50 {r['op_us']['p50']:.2f} us (ratio {ratio:.2f})")
    if mode == "eager" and got != want:
        ok = False
    if mode == "eager" and not (0.05 < ratio < 20):
        ok = False
step = comm["step"]
print(f"  step: {step.get('pattern_text') or step.get('reason')}")
if mode == "eager" and step.get("pattern_text") != "AllReduce x 122":
    ok = False
if mode == "graph":
    print("  graph mode: " + ("records per replay" if counts else "no AllReduce records from graph replays"))
sys.exit(0 if ok else 1)
PY
  [ "${PIPESTATUS[0]}" = 0 ] || fail "k25comm $mode: the capture does not match what was issued"
done

# --- 2. several ranks on one GPU ----------------------------------------------------------------------------------
# mpirun -np N k25comm --emulate-ranks with the Inspector loaded; the capture must join N ranks per op
# (communicators[0].ranks == 0..N-1, partial_ops == 0) and find "AllReduce x 122".
n=${K25_CAPTURE_EMULATED_RANKS:-4}
if [ "$n" -gt 1 ] 2>/dev/null; then
  inspector "k25-ranks$n" mpirun -np "$n" --oversubscribe "$k25comm" "${k25_args[@]}" --emulate-ranks \
    --phases allreduce --tokens 1,8 --iters 5 --op-iters 1 --modes eager --out "$work/k25-ranks$n"
  "$k25comm" capture "$work/dump-k25-ranks$n" --model "$kimi" --no-plots --out "$work/capture-k25-ranks$n" \
    >"$work/capture-k25-ranks$n.log" 2>&1 || fail "capture of $n emulated ranks"
  "$python" - "$work/capture-k25-ranks$n/capture.json" "$n" <<'PY' || fail "$n emulated ranks: joins"
import json, sys
c = json.load(open(sys.argv[1]))["communicators"][0]
n = int(sys.argv[2])
assert c["ranks"] == list(range(n)) and c["partial_ops"] == 0, (c["ranks"], c["partial_ops"])
assert c["step"].get("pattern_text") == "AllReduce x 122", c["step"]
print(f"ok: {n} ranks joined on every op")
PY
else
  note "emulated ranks: skipped (K25_CAPTURE_EMULATED_RANKS=$n)"
fi

# --- 3. nccl-tests -------------------------------------------------------------------------------------------------
if [ -n "$tests" ] && [ -x "$tests/bin/all_reduce_perf" ]; then
  for variant in eager graph; do
    graph_args=(); [ "$variant" = graph ] && graph_args=(-G 20)
    inspector "nt-allreduce-$variant" "$tests/bin/all_reduce_perf" -b 14336 -e 3670016 -f 2 -g 1 -d bfloat16 -w 2 -n 20 \
      -c 0 "${graph_args[@]}"
    "$k25comm" capture "$work/dump-nt-allreduce-$variant" --model "$kimi" --no-plots \
      --out "$work/capture-nt-allreduce-$variant" >"$work/capture-nt-allreduce-$variant.log" 2>&1 ||
      { note "nccl-tests all_reduce $variant: no capture ($(tail -1 "$work/capture-nt-allreduce-$variant.log"))";
        [ "$variant" = eager ] && fail "nccl-tests eager capture"; continue; }
    "$python" - "$work/capture-nt-allreduce-$variant/capture.json" "$variant" <<'PY' | tee -a "$figures"
import json, sys
comm = max(json.load(open(sys.argv[1]))["communicators"], key=lambda c: c["records"]["coll"])
counts = {}
for g in comm["by_size"]:
    if g["kind"] == "AllReduce":
        counts[g["bytes"]] = counts.get(g["bytes"], 0) + g["count"]
sizes = [14336 << k for k in range(9)]
print(f"nccl-tests all_reduce {sys.argv[2]}: " + ", ".join(f"{s} B x {counts.get(s, 0)}" for s in sizes))
sys.exit(0 if sys.argv[2] == "graph" or all(counts.get(s, 0) >= 20 for s in sizes) else 1)
PY
    [ "${PIPESTATUS[0]}" = 0 ] || fail "nccl-tests all_reduce $variant: a swept size is missing"
  done
  for t in all_gather sendrecv; do
    [ -x "$tests/bin/${t}_perf" ] || continue
    inspector "nt-$t" "$tests/bin/${t}_perf" -b 14336 -e 14336 -g 1 -d bfloat16 -w 2 -n 20 -c 0
    "$k25comm" capture "$work/dump-nt-$t" --no-plots --out "$work/capture-nt-$t" >"$work/capture-nt-$t.log" 2>&1
    note "nccl-tests $t: $(grep -E '^  communicator' "$work/capture-nt-$t.log" | head -2 | tr -s ' ' | tr '\n' ';')"
  done

  # --- 4. cost under CUDA graphs: with and without the plugin --------------------------------------------------
  "$tests/bin/all_reduce_perf" -b 14336 -e 3670016 -f 4 -g 1 -d bfloat16 -w 5 -n 100 -c 0 -G 100 \
    >"$work/nt-graph-plain.log" 2>&1
  inspector "nt-graph-cost" "$tests/bin/all_reduce_perf" -b 14336 -e 3670016 -f 4 -g 1 -d bfloat16 -w 5 -n 100 -c 0 \
    -G 100
  "$python" - "$work/nt-graph-plain.log" "$work/nt-graph-cost.log" <<'PY' | tee -a "$figures"
import sys
def times(path):
    found = {}
    for line in open(path, errors="replace"):
        cols = line.split()
        if len(cols) >= 8 and cols[0].isdigit() and cols[2] == "bfloat16":
            found[int(cols[0])] = float(cols[5])
    return found
plain, loaded = times(sys.argv[1]), times(sys.argv[2])
print("CUDA-graph cost of the Inspector, nccl-tests all_reduce -G 100, out-of-place us per op:")
for size in sorted(plain):
    if size in loaded:
        print(f"  {size:>9} B: without {plain[size]:.2f}, with {loaded[size]:.2f}, +{loaded[size] - plain[size]:.2f} us")
PY
else
  note "nccl-tests: SKIPPED (set NCCL_TESTS_DIR to a build with bin/all_reduce_perf)"
fi
"$k25comm" "${k25_args[@]}" --phases allreduce --modes graph --out "$work/k25-graph-plain" >"$work/k25-graph-plain.log" 2>&1
if [ -f "$work/k25-graph-plain/report.json" ] && [ -f "$work/k25-graph/report.json" ]; then
  "$python" - "$work/k25-graph-plain/report.json" "$work/k25-graph/report.json" <<'PY' | tee -a "$figures"
import json, sys
def per_op(path):
    return {r["tokens"]: r["step_us"]["p50"] / r["ops_per_step"]
            for r in json.load(open(path))["results"] if r["phase"] == "allreduce"}
plain, loaded = per_op(sys.argv[1]), per_op(sys.argv[2])
print("CUDA-graph cost of the Inspector, k25comm graph mode (step p50 / 122), us per op:")
for t in sorted(plain):
    if t in loaded:
        print(f"  {t:>3} tokens: without {plain[t]:.2f}, with {loaded[t]:.2f}, +{loaded[t] - plain[t]:.2f} us")
PY
fi

# --- 5. the raw dumps, for tests/capture fixtures -------------------------------------------------------------------
tar -czf "$out/inspector-dumps.tar.gz" -C "$work" $(cd "$work" && ls -d dump-* capture-* 2>/dev/null) 2>/dev/null
cp "$figures" "$out/capture-gpu-figures.txt"
for log in "$work"/*.log; do echo "===== $(basename "$log")"; tail -40 "$log"; done >"$out/capture-gpu.log"
rm -rf "$work"
echo "== capture GPU check: $([ $failed = 0 ] && echo PASS || echo FAIL); figures in $out/capture-gpu-figures.txt"
exit $failed
