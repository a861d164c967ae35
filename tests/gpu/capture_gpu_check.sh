#!/bin/bash
# `k25comm capture` against real NCCL Inspector output on a GPU host (the H200 test machine); for tools/gpu-checks.
# Every run has at least two ranks: NCCL reports no one-rank collective to a profiler plugin (enqueue.cc,
# taskAppend: a one-rank communicator takes ncclLaunchOneRank and returns before the profiler's events start), so
# the ranks are emulated on the GPU(s) this host sees (k25comm --emulate-ranks; nccl-tests with NCCL_HOSTID per
# rank, NCCL's socket transport over loopback).
#   1. k25comm (2 ranks, configs/kimi.yaml, AllReduce + All-to-All) with the Inspector loaded, eager, then graph:
#      capture must find exactly what was issued: per swept size, 122 AllReduces x (warm-up + trials + per-op
#      trials) bursts, the step as "AllReduce x 122" with --model, and per-op times near k25comm's own. Graph mode:
#      writes down whether replays give records.
#   2. 4 emulated ranks (K25_CAPTURE_EMULATED_RANKS=N for another count, 0 to skip): the capture joins N ranks on
#      every op and finds "AllReduce x 122".
#   3. nccl-tests all_reduce_perf (eager and -G graph), all_gather_perf, sendrecv_perf at 2 ranks with the
#      Inspector: the swept sizes found, AllGather and Send/Recv records seen.
#   4. The cost of the Inspector under CUDA graphs (a host callback per replay for kernel timing), 2 ranks:
#      nccl-tests -G 100 and k25comm graph mode, each with and without the plugin, per-op time difference.
#   5. $OUT/inspector-dumps.tar.gz: the captures and the first 2,000 lines of each raw dump (real fixtures for
#      tests/capture), at most 2 MiB (else the captures alone), so that what a GPU call returns stays small.
# usage: capture_gpu_check.sh K25COMM KIMI_CONFIG [DEVICE_COUNT_EXE [MPIRUN]]
# env:   K25_INSPECTOR_SO  the Inspector plugin (libnccl-profiler-inspector.so; docs/capture.md)
#        NCCL_TESTS_DIR    nccl-tests root (bin/all_reduce_perf ...; lib/ added to LD_LIBRARY_PATH); optional
#        OUT               where results go (default ./capture-gpu-out)
#        K25_DEADLINE      as in tools/bench/time_limits.sh (default 290 s from now)
# Exits 77 (skipped) without a CUDA device or without the plugin; 1 when a check failed; 0 otherwise.
set -u
k25comm=$1 kimi=$2 device_count=${3:-} mpirun=${4:-mpirun}
out=${OUT:-$PWD/capture-gpu-out}
so=${K25_INSPECTOR_SO:-}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../tools/bench/time_limits.sh
source "$here/../../tools/bench/time_limits.sh"
export K25_DEADLINE=${K25_DEADLINE:-$(($(date +%s) + 290))}
export K25_RUN_TOKEN=${K25_RUN_TOKEN:-k25-capture-check-$$}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

if [ -n "$device_count" ]; then
  limited 30 "$device_count" >/dev/null 2>&1 || { echo "SKIPPED: no CUDA device visible"; exit 77; }
else
  limited 30 nvidia-smi -L >/dev/null 2>&1 || { echo "SKIPPED: no CUDA device visible"; exit 77; }
fi
[ -n "$so" ] && [ -f "$so" ] || { echo "SKIPPED: no Inspector plugin (set K25_INSPECTOR_SO to libnccl-profiler-inspector.so)"; exit 77; }
mkdir -p "$out"
work=$(mktemp -d /tmp/k25-capture-gpu.XXXXXX)
trap 'rm -rf "$work"' EXIT
python=$(command -v python3)
tests=${NCCL_TESTS_DIR:-}
[ -n "$tests" ] && [ -d "$tests/lib" ] && export LD_LIBRARY_PATH="$tests/lib:${LD_LIBRARY_PATH:-}"  # libcudart.so.13
failed=0 figures=$work/figures.txt
: >"$figures"
fail() { echo "FAIL: $*"; failed=1; }
note() { echo "$*" | tee -a "$figures"; }

# inspector NAME SECONDS COMMAND...: runs COMMAND with the Inspector loaded, dumping into $work/dump-NAME, output
# in $work/NAME.log.
inspector() {
  local name=$1 seconds=$2
  shift 2
  rm -rf "$work/dump-$name"
  NCCL_PROFILER_PLUGIN="$so" NCCL_INSPECTOR_ENABLE=1 NCCL_INSPECTOR_DUMP_DIR="$work/dump-$name" \
    NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS=1000 NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES=0 \
    NCCL_INSPECTOR_DUMP_VERBOSE=1 NCCL_INSPECTOR_DUMP_COLL_RING_SIZE=16384 NCCL_INSPECTOR_DUMP_P2P_RING_SIZE=16384 \
    limited "$seconds" "$@" >"$work/$name.log" 2>&1
}
# k25_cmd RANKS [k25comm flags...]: sets cmd to RANKS emulated ranks of k25comm.
k25_cmd() {
  local ranks=$1
  shift
  cmd=("$mpirun" -np "$ranks" --oversubscribe "$k25comm" --backend nccl --emulate-ranks --sizes "$kimi"
       --time-budget 60 --no-check "$@")
}
# nt_cmd RANKS PROGRAM [args...]: sets cmd to nccl-tests on RANKS emulated ranks (one NCCL_HOSTID each, NCCL's
# socket transport over loopback).
nt_cmd() {
  local ranks=$1
  shift
  # shellcheck disable=SC2016
  cmd=("$mpirun" -np "$ranks" --oversubscribe -x NCCL_SOCKET_IFNAME=lo -x NCCL_NET=Socket
       bash -c 'NCCL_HOSTID=k25capture-$OMPI_COMM_WORLD_RANK exec "$0" "$@"' "$@")
}
run_k25() {  # NAME SECONDS RANKS [k25comm flags...]: k25comm with the Inspector
  local name=$1 seconds=$2 ranks=$3
  shift 3
  k25_cmd "$ranks" "$@"
  inspector "$name" "$seconds" "${cmd[@]}"
}

# --- 1. k25comm, 2 ranks, eager then graph ------------------------------------------------------------------------
for mode in eager graph; do
  run_k25 "k25-$mode" 120 2 --phases allreduce,alltoall --tokens 1,8,64 --iters 10 --warmup 2 --op-iters 3 \
    --modes "$mode" --out "$work/k25-$mode"
  rc=$?
  [ "$rc" = 0 ] || { tail -20 "$work/k25-$mode.log"; fail "k25comm $mode with the Inspector: exit $rc"; continue; }
  if ! ls "$work/dump-k25-$mode"/*.log >/dev/null 2>&1; then
    note "k25comm $mode: the Inspector wrote no file"
    [ "$mode" = eager ] && fail "k25comm eager: no Inspector output"
    continue
  fi
  limited 120 "$k25comm" capture "$work/dump-k25-$mode" --model "$kimi" --replay "$work/k25-$mode/report.json" \
    --no-plots --out "$work/capture-k25-$mode" >"$work/capture-k25-$mode.log" 2>&1 ||
    { cat "$work/capture-k25-$mode.log"; fail "capture of k25comm $mode"; continue; }
  cat "$work/capture-k25-$mode.log"
  "$python" - "$work/k25-$mode/report.json" "$work/capture-k25-$mode/capture.json" "$mode" >"$work/check-k25-$mode.txt" <<'PY'
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
  rc=$?
  tee -a "$figures" <"$work/check-k25-$mode.txt"
  [ "$rc" = 0 ] || fail "k25comm $mode: the capture does not match what was issued"
done

# --- 2. several emulated ranks --------------------------------------------------------------------------------------
n=${K25_CAPTURE_EMULATED_RANKS:-4}
if [ "$n" -gt 1 ] 2>/dev/null; then
  run_k25 "k25-ranks$n" 120 "$n" --phases allreduce --tokens 1,8 --iters 5 --warmup 2 --op-iters 1 --modes eager \
    --out "$work/k25-ranks$n" || { tail -20 "$work/k25-ranks$n.log"; fail "k25comm at $n emulated ranks"; }
  limited 120 "$k25comm" capture "$work/dump-k25-ranks$n" --model "$kimi" --no-plots --out "$work/capture-k25-ranks$n" \
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

# --- 3. nccl-tests, 2 ranks -----------------------------------------------------------------------------------------
if [ -n "$tests" ] && [ -x "$tests/bin/all_reduce_perf" ]; then
  for variant in eager graph; do
    graph_args=()
    [ "$variant" = graph ] && graph_args=(-G 20)
    nt_cmd 2 "$tests/bin/all_reduce_perf" -b 14336 -e 3670016 -f 2 -g 1 -d bfloat16 -w 2 -n 20 -c 0 \
      "${graph_args[@]}"
    inspector "nt-allreduce-$variant" 90 "${cmd[@]}"
    limited 60 "$k25comm" capture "$work/dump-nt-allreduce-$variant" --model "$kimi" --no-plots \
      --out "$work/capture-nt-allreduce-$variant" >"$work/capture-nt-allreduce-$variant.log" 2>&1 ||
      { note "nccl-tests all_reduce $variant: no capture ($(tail -1 "$work/capture-nt-allreduce-$variant.log"))";
        [ "$variant" = eager ] && fail "nccl-tests eager capture"; continue; }
    "$python" - "$work/capture-nt-allreduce-$variant/capture.json" "$variant" >"$work/check-nt-$variant.txt" <<'PY'
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
    rc=$?
    tee -a "$figures" <"$work/check-nt-$variant.txt"
    [ "$rc" = 0 ] || fail "nccl-tests all_reduce $variant: a swept size is missing"
  done
  for t in all_gather sendrecv; do
    [ -x "$tests/bin/${t}_perf" ] || continue
    nt_cmd 2 "$tests/bin/${t}_perf" -b 14336 -e 14336 -g 1 -d bfloat16 -w 2 -n 20 -c 0
    inspector "nt-$t" 60 "${cmd[@]}"
    limited 60 "$k25comm" capture "$work/dump-nt-$t" --no-plots --out "$work/capture-nt-$t" \
      >"$work/capture-nt-$t.log" 2>&1
    note "nccl-tests $t: $(grep -E '^  communicator' "$work/capture-nt-$t.log" | head -2 | tr -s ' ' | tr '\n' ';')"
  done

  # --- 4. cost under CUDA graphs: with and without the plugin -----------------------------------------------------
  nt_cmd 2 "$tests/bin/all_reduce_perf" -b 14336 -e 3670016 -f 4 -g 1 -d bfloat16 -w 5 -n 100 -c 0 -G 100
  limited 90 "${cmd[@]}" >"$work/nt-graph-plain.log" 2>&1
  inspector "nt-graph-cost" 90 "${cmd[@]}"
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
print("CUDA-graph cost of the Inspector, nccl-tests all_reduce -G 100 at 2 emulated ranks, out-of-place us per op:")
for size in sorted(plain):
    if size in loaded:
        print(f"  {size:>9} B: without {plain[size]:.2f}, with {loaded[size]:.2f}, +{loaded[size] - plain[size]:.2f} us")
PY
else
  note "nccl-tests: SKIPPED (set NCCL_TESTS_DIR to an nccl-tests folder with bin/all_reduce_perf)"
fi
k25_cmd 2 --phases allreduce --tokens 1,8,64 --iters 10 --warmup 2 --modes graph --out "$work/k25-graph-plain"
limited 120 "${cmd[@]}" >"$work/k25-graph-plain.log" 2>&1
if [ -f "$work/k25-graph-plain/report.json" ] && [ -f "$work/k25-graph/report.json" ]; then
  "$python" - "$work/k25-graph-plain/report.json" "$work/k25-graph/report.json" <<'PY' | tee -a "$figures"
import json, sys
def per_op(path):
    return {r["tokens"]: r["step_us"]["p50"] / r["ops_per_step"]
            for r in json.load(open(path))["results"] if r["phase"] == "allreduce"}
plain, loaded = per_op(sys.argv[1]), per_op(sys.argv[2])
print("CUDA-graph cost of the Inspector, k25comm graph mode at 2 emulated ranks (step p50 / 122), us per op:")
for t in sorted(plain):
    if t in loaded:
        print(f"  {t:>3} tokens: without {plain[t]:.2f}, with {loaded[t]:.2f}, +{loaded[t] - plain[t]:.2f} us")
PY
fi

# --- 5. the captures and a sample of the raw dumps, for tests/capture fixtures ---------------------------------------
mkdir -p "$work/returned"
for dir in "$work"/capture-*/; do [ -d "$dir" ] && cp -r "$dir" "$work/returned/"; done
for dump in "$work"/dump-*/*.log; do
  [ -f "$dump" ] || continue
  name=$(basename "$(dirname "$dump")")
  mkdir -p "$work/returned/$name"
  head -n 2000 "$dump" >"$work/returned/$name/$(basename "$dump")"
done
tar -czf "$out/inspector-dumps.tar.gz" -C "$work/returned" . 2>/dev/null
if [ "$(stat -c %s "$out/inspector-dumps.tar.gz" 2>/dev/null || echo 0)" -gt $((2 * 1024 * 1024)) ]; then
  rm -rf "$work"/returned/dump-*
  tar -czf "$out/inspector-dumps.tar.gz" -C "$work/returned" . 2>/dev/null
  note "the dump samples made the tarball larger than 2 MiB: it holds the captures only"
fi
cp "$figures" "$out/capture-gpu-figures.txt"
for log in "$work"/*.log; do echo "===== $(basename "$log")"; tail -40 "$log"; done >"$out/capture-gpu.log"
echo "== capture GPU check: $([ $failed = 0 ] && echo PASS || echo FAIL); figures in $out/capture-gpu-figures.txt"
exit $failed
