#!/bin/bash
# k25comm itself on a GPU host (one rank unless stated), checked from its exit code, output and report.json.
# usage: k25comm_gpu_check.sh CHECK K25COMM DEVICE_COUNT_EXE CONFIG OUT_DIR [MPIRUN]
#   version          --version names device code this GPU runs (its sm_XY, or an older one of its major) and the
#                    NCCL the process loaded
#   eager-graph      one rank, --backend nccl, eager and graph modes: exit 0, transport nccl, wrong == 0 everywhere
#   watchdog         an injected hang at allreduce 8 tokens op 3 with --timeout 5: exit 3 within 35 s, the message
#                    names rank, op and token count, and the journal kept the 1-token results
#   too-many-ranks   one more rank than GPUs under mpirun: exit 2 with one clear message, before NCCL is touched
#   device-only      one rank, --device-only, eager and graph: exit 0, wrong == 0, results marked device_only
#   graph-padding    one rank, allreduce at tokens 3 and 5, eager and graph: graph results measured at the capture
#                    sizes 4 and 8 (requested_tokens 3 and 5, the padded count's bytes), eager ones at 3 and 5
#   decode           the decode timing mode at one rank, eager and decode, 20 us gaps + 40 us per layer + up to 5 us
#                    of skew: exit 0, wrong == 0, the busy kernels' measured gaps at least the configured ones, a
#                    join cost per point
#   decode-emulated  the same at 4 emulated ranks
#   register         --nccl-register local at one rank (kimi.yaml: AllReduce, dispatch, combine; kimi-vllm-tp8.yaml:
#                    AllReduce and the logits AllGather), eager and graph: exit 0, wrong == 0, the registration in
#                    the config and the notes; symmetric at one rank refused (exit 2, the reason) before measuring
#   register-emulated local at 4 emulated ranks: wrong == 0 and the note that sockets cannot use it; symmetric
#                    refused (exit 2) before measuring
#   emulated-N       N ranks on the visible GPU(s) with --emulate-ranks (N = 4, 8, ...): kimi at 1 and 16 tokens,
#                    eager and graph, wrong == 0 for allreduce, dispatch and combine (NxN routing matrices),
#                    topology kind "emulated" and its note
#   emulated-kill    4 emulated ranks; SIGKILL of rank 2 mid-sweep (eager): the job ends within 60 s, non-zero,
#                    no rank left, and the journal keeps every result gathered before (and re-renders)
#   emulated-hang    4 emulated ranks; an injected hang on rank 2 only, eager: exit 3 within 50 s, naming rank 2
#   emulated-hang-graph the same in graph mode (the hang inside the captured graph): every rank destroys its graphs
#                    before ncclCommAbort, so the job still ends with exit 3 in time
#   emulated-slowest 4 emulated ranks; rank 2 arrives 20 ms late at every trial: every result names it slowest
#   backends-N       the AllReduce backends (nccl, oneshot, twoshot, oneshot-pull) interleaved at N ranks (1: one rank;
#                    more: emulated ranks, under MPS where the caller runs it), kimi at 1 and 16 tokens, eager, graph
#                    and decode, the add-rmsnorm epilogue at 16 tokens: exit 0, every backend's rows present, wrong == 0
#                    and checked for each (or a row that says why it did not run); each backend's op p50 per point
#                    written to OUT_DIR/backends-figures.txt as the check ends
# Exits 77 (skipped) where no CUDA device is visible. Every command runs under a time limit (tools/bench/
# time_limits.sh) that ends strictly before the caller's deadline (K25_DEADLINE; without one, 290 s from now:
# ctest gives 300). Ranks inherit the environment (one host), so an MPS pipe directory exported by the caller
# reaches them.
set -u
check=$1 k25comm=$2 device_count=$3 config=$4 out=$5 mpirun=${6:-mpirun}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../tools/bench/time_limits.sh
source "$here/../../tools/bench/time_limits.sh"
export K25_DEADLINE=${K25_DEADLINE:-$(($(date +%s) + 290))}
export K25_RUN_TOKEN=${K25_RUN_TOKEN:-k25-gpu-check-$$}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

devices=$(limited 30 "$device_count" 2>/dev/null) || { echo "SKIPPED: no CUDA device visible"; exit 77; }
rm -rf "$out" "$out".*
fail() { echo "FAIL ($check): $*"; exit 1; }
# k25 SECONDS [k25comm flags...]: one rank, output to stdout.
k25() {
  local seconds=$1
  shift
  limited "$seconds" "$k25comm" "$@"
}
# emulated RANKS SECONDS [k25comm flags...]: RANKS emulated ranks of the config under mpirun.
emulated() {
  local ranks=$1 seconds=$2
  shift 2
  limited "$seconds" "$mpirun" -np "$ranks" --oversubscribe "$k25comm" --backend nccl --emulate-ranks \
    --sizes "$config" "$@"
}
# expect_rc LOG RC WANT WHAT: shows the log, fails unless the exit code is WANT (124: the time limit ended it).
expect_rc() {
  cat "$1"
  [ "$2" = 124 ] && fail "$4: ran out of its time limit"
  [ "$2" = "$3" ] || fail "$4: exit code $2, expected $3"
}
seconds_since() { python3 -c "import sys, time; print(f'{time.time() - float(sys.argv[1]):.1f}')" "$1"; }

# A decode report: RANKS ranks, eager and decode results, wrong == 0, measured gaps >= configured, a join cost.
check_decode_report() {  # REPORT RANKS
  python3 - "$1" "$2" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
ranks = int(sys.argv[2])
results = report["results"]
decode = [r for r in results if r["mode"] == "decode"]
assert decode and len(decode) * 2 == len(results), [(r["phase"], r["mode"]) for r in results]
for r in results:
    assert r["wrong"] == 0 and r["checked"], (r["phase"], r["tokens"], r["mode"], r["wrong"])
    assert r["ranks"] == ranks
for r in decode:
    d = r["decode"]
    assert d["gap_measured_us"]["min"] >= d["gap_expected_us"] * 0.999, (r["phase"], r["tokens"], d)
    assert d["join_cost"] is not None and 0 <= d["comm_us"]["p50"] <= r["step_us"]["p50"], d
    print(f"ok: {r['phase']} at {r['tokens']} tokens: gaps measured {d['gap_measured_us']['p50']:.1f} us vs "
          f"configured {d['gap_expected_us']:.1f} us ({d['gap_measured_us']['p50'] / d['gap_expected_us']:.3f}x), "
          f"comm {d['comm_us']['p50']:.1f} us, join cost {d['join_cost']:.2f}x")
PY
}
# shellcheck disable=SC2054  # the commas belong to the values
decode_flags=(--backend nccl --sizes "$config" --phases allreduce,alltoall --modes eager,decode --tokens 1,16
              --decode-gap 20 --decode-layer-gap 40 --decode-skew 5 --iters 10 --warmup 2 --op-iters 5 --time-budget 2)

# A registered run's report: MODE registration, RANKS ranks, wrong == 0, the registration note.
check_registered_report() {  # REPORT MODE RANKS
  python3 - "$@" <<'PY'
import json, sys
report, mode, ranks = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
run, results = report["run"], report["results"]
assert run["transport"] == "nccl" and run["ranks"] == ranks, (run["transport"], run["ranks"])
assert run["config"]["transport"]["nccl_register"] == mode, run["config"]["transport"]
assert any(n.startswith(f"NCCL buffer registration {mode}:") for n in run["notes"]), run["notes"]
assert results, "no results"
for r in results:
    assert r["wrong"] == 0 and r["checked"], (r["phase"], r["tokens"], r["mode"], r["wrong"])
print(f"ok: --nccl-register {mode} at {ranks} rank(s): " + ", ".join(
    f"{r['phase']} T={r['tokens']} {r['mode']} {r['step_us']['p50'] / r['ops_per_step']:.1f} us/op" for r in results))
PY
}
# symmetric_refused LOG RC RANKS: exit 2 with the reason, nothing measured.
symmetric_refused() {
  expect_rc "$1" "$2" 2 "symmetric at $3 rank(s)"
  grep -q "^k25comm: error: --nccl-register symmetric: NCCL runs its symmetric kernels only" "$1" ||
    fail "the symmetric refusal at $3 rank(s) does not say why"
  ! grep -q "^# sweep:" "$1" || fail "the refused symmetric run at $3 rank(s) measured"
}

# The pid of world rank RANK among the k25comm processes this check started (their environment holds our token).
rank_pid() {  # RANK
  local pid
  for pid in $(pids_with_env "K25_RUN_TOKEN=$K25_RUN_TOKEN"); do
    if environ_has "$pid" "OMPI_COMM_WORLD_RANK=$1" &&
      tr '\0' '\n' 2>/dev/null <"/proc/$pid/cmdline" | grep -qxF "$k25comm"; then
      echo "$pid"
      return 0
    fi
  done
  return 1
}
result_lines() {
  local n
  n=$(grep -c '"type":"result"' "$1" 2>/dev/null)
  echo "${n:-0}"
}
journaled_a_result() { [ "$(result_lines "$1")" -ge 1 ]; }

# An injected hang on rank 2 of 4 in MODE: exit 3 within 50 s (timeout 10 s, the abort's 10 s grace, slack),
# rank 2 named as the rank where it was injected, the journal kept.
hang_on_rank_2() {  # MODE
  local start rc elapsed
  start=$(date +%s.%N)
  emulated 4 120 --phases allreduce --modes "$1" --tokens 1,8 --iters 5 --timeout 10 \
    --inject-hang allreduce:8:3:2 --out "$out" >"$out.log" 2>&1
  rc=$?
  elapsed=$(seconds_since "$start")
  expect_rc "$out.log" "$rc" 3 "injected hang on rank 2 ($1)"
  echo "exit $rc after $elapsed s"
  python3 -c "import sys; sys.exit(0 if $elapsed < 50 else 1)" || fail "took $elapsed s (timeout 10 s)"
  grep -q "rank 2 of 4: allreduce at 8 tokens, op 3 of .* did not finish (a hang was injected there" "$out.log" ||
    fail "the output does not name rank 2 as the rank with the injected hang"
  [ -s "$out/journal.jsonl" ] || fail "the journal lost the results gathered before the hang"
  echo "ok: injected hang on rank 2 of 4 in $1 mode: exit 3 after $elapsed s, rank 2 named"
}

case "$check" in
version)
  k25 20 --version >"$out.log" 2>&1
  expect_rc "$out.log" $? 0 "--version"
  capability=$(limited 20 nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1)
  python3 - "$out.log" "$capability" <<'PY' || fail "--version does not name code this GPU runs, or the NCCL"
import re, sys
text, capability = open(sys.argv[1]).read(), sys.argv[2].strip()
major, minor = (int(x) for x in capability.split("."))
kernels = re.search(r"^CUDA kernels: (.*)$", text, re.M).group(1)
real = [int(a) for a in re.findall(r"sm_(\d+)", kernels)]
ptx = [int(a) for a in re.findall(r"compute_(\d+)", kernels)]
runs = [a for a in real if a // 10 == major and a % 10 <= minor] + [a for a in ptx if a <= major * 10 + minor]
assert runs, f"compute capability {capability}: {kernels}"
nccl = re.search(r"^NCCL: (\d+\.\d+\.\d+) at run time", text, re.M)
assert nccl, "no runtime NCCL version"
print(f"ok: compute capability {capability} runs {runs}; NCCL {nccl.group(1)} loaded")
PY
  ;;
eager-graph)
  k25 100 --backend nccl --sizes "$config" --phases allreduce,alltoall --modes eager,graph --iters 20 \
    --time-budget 2 --out "$out" >"$out.log" 2>&1
  expect_rc "$out.log" $? 0 "eager and graph"
  python3 - "$out/report.json" <<'PY' || fail "report.json check"
import json, sys
report = json.load(open(sys.argv[1]))
run = report["run"]
assert run["transport"] == "nccl", run["transport"]
results = report["results"]
modes = {r["mode"] for r in results}
assert modes == {"eager", "graph"}, modes
wrong = [(r["phase"], r["tokens"], r["mode"], r["wrong"]) for r in results if r["wrong"] != 0]
assert not wrong, wrong
assert report["topology"]["kind"] in ("pcie", "nvlink"), report["topology"]["kind"]
notes = " ".join(run.get("notes", []))
assert "launch and copy cost" in notes, "the one-rank caveat is missing from run.notes"
print(f"ok: {len(results)} results, modes {sorted(modes)}, wrong == 0, topology {report['topology']['kind']}")
PY
  ;;
watchdog)
  start=$(date +%s.%N)
  k25 60 --backend nccl --sizes "$config" --phases allreduce --modes eager --tokens 1,8 --iters 5 \
    --timeout 5 --inject-hang allreduce:8:3 --out "$out" >"$out.log" 2>&1
  rc=$?
  elapsed=$(seconds_since "$start")
  expect_rc "$out.log" "$rc" 3 "injected hang"
  echo "exit $rc after $elapsed s"
  python3 -c "import sys; sys.exit(0 if $elapsed < 35 else 1)" || fail "took $elapsed s (timeout 5 s)"
  grep -q "rank 0" "$out.log" || fail "the message does not name the rank"
  grep -q "op 3 of" "$out.log" || fail "the message does not name the op"
  grep -q "at 8 tokens" "$out.log" || fail "the message does not name the token count"
  [ -s "$out/journal.jsonl" ] || fail "the journal lost the results gathered before the hang"
  grep -q '"tokens": *1[,}]' "$out/journal.jsonl" || fail "the 1-token result is not in the journal"
  echo "ok: watchdog fired, exit 3 after $elapsed s, journal kept $(wc -l <"$out/journal.jsonl") line(s)"
  ;;
too-many-ranks)
  ranks=$((devices + 1))
  limited 60 "$mpirun" -np "$ranks" --oversubscribe "$k25comm" --backend nccl --sizes "$config" --tokens 1 \
    --out "$out" >"$out.log" 2>&1
  expect_rc "$out.log" $? 2 "$ranks ranks on $devices GPU(s)"
  grep -qE "runs $ranks ranks but (has $devices visible CUDA device|local ranks [0-9]+ and [0-9]+ would both drive GPU)" \
    "$out.log" || fail "no clear message"
  ! grep -qE -- "--backend nccl: .*--backend nccl: |backend mpi.*backend mpi" "$out.log" ||
    fail "the refusal repeats itself"
  grep -qiE "NCCL (INFO|WARN)|ncclCommInitRank" "$out.log" && fail "NCCL was touched"
  echo "ok: $ranks ranks on $devices GPU(s) refused before NCCL"
  ;;
device-only)
  k25 90 --backend nccl --sizes "$config" --phases allreduce,alltoall --modes eager,graph --tokens 1,16 \
    --iters 20 --time-budget 2 --device-only --out "$out" >"$out.log" 2>&1
  expect_rc "$out.log" $? 0 "device-only"
  python3 - "$out/report.json" <<'PY' || fail "report.json check"
import json, sys
report = json.load(open(sys.argv[1]))
results = report["results"]
assert results and all(r["device_only"] for r in results), "every result is marked device_only"
assert all(r["wrong"] == 0 for r in results), [(r["phase"], r["tokens"], r["wrong"]) for r in results]
assert any("device-only timing" in n for n in report["run"]["notes"]), "the device-only note"
for r in results:
    print(f"{r['phase']:9} T={r['tokens']:<3} {r['mode']:5} step p50 {r['step_us']['p50']:9.1f} us, "
          f"launch p50 {r['launch_us']['p50']:9.1f} us")
PY
  ;;
graph-padding)
  k25 90 --backend nccl --sizes "$config" --phases allreduce --modes eager,graph --tokens 3,5 --iters 20 \
    --time-budget 2 --out "$out" >"$out.log" 2>&1
  expect_rc "$out.log" $? 0 "graph padding"
  grep -q "graph mode pads token counts to capture sizes (sweep.graph_sizes): 3 -> 4, 5 -> 8" "$out.log" ||
    fail "the sweep line does not show the padding"
  grep -qE "allreduce +3->4 " "$out.log" || fail "the console row does not show 3->4"
  python3 - "$out/report.json" <<'PY' || fail "report.json check"
import json, sys
report = json.load(open(sys.argv[1]))
hidden = report["run"]["config"]["model"]["hidden_size"]
got = sorted((r["mode"], r["requested_tokens"], r["tokens"], r["bytes_per_op"], r.get("above_graph_sizes"))
             for r in report["results"])
want = [("eager", 3, 3, 3 * hidden * 2, None), ("eager", 5, 5, 5 * hidden * 2, None),
        ("graph", 3, 4, 4 * hidden * 2, False), ("graph", 5, 8, 8 * hidden * 2, False)]
assert got == want, got
assert all(r["wrong"] == 0 and r["checked"] for r in report["results"]), "wrong elements"
print("ok: graph mode measured 3 -> 4 and 5 -> 8 tokens, eager 3 and 5:", got)
PY
  ;;
decode)
  k25 100 "${decode_flags[@]}" --out "$out" >"$out.log" 2>&1
  expect_rc "$out.log" $? 0 "decode at one rank"
  check_decode_report "$out/report.json" 1 || fail "report.json check (one rank)"
  grep -q "each gap is a GPU busy kernel on the op stream" "$out/report.json" || fail "no decode note"
  ;;
decode-emulated)
  limited 150 "$mpirun" -np 4 --oversubscribe "$k25comm" "${decode_flags[@]}" --emulate-ranks \
    --timeout 60 --out "$out" >"$out.log" 2>&1
  expect_rc "$out.log" $? 0 "decode at 4 emulated ranks"
  check_decode_report "$out/report.json" 4 || fail "report.json check (4 emulated ranks)"
  ;;
register)
  mkdir -p "$out"
  vllm_config=$(dirname "$config")/kimi-vllm-tp8.yaml
  for cfg in "$config" "$vllm_config"; do
    name=local-$(basename "$cfg" .yaml)
    k25 60 --backend nccl --sizes "$cfg" --nccl-register local --modes eager,graph --tokens 1,16 --iters 10 \
      --warmup 2 --op-iters 3 --time-budget 1 --out "$out/$name" >"$out/$name.log" 2>&1
    expect_rc "$out/$name.log" $? 0 "$name, one rank"
    check_registered_report "$out/$name/report.json" local 1 || fail "report.json check ($name)"
  done
  k25 30 --backend nccl --sizes "$config" --nccl-register symmetric --phases allreduce --tokens 1 \
    --out "$out/symmetric-1" >"$out/symmetric-1.log" 2>&1
  symmetric_refused "$out/symmetric-1.log" $? 1
  echo "ok: local registration at one rank; symmetric refused at one rank (exit 2) before measuring"
  ;;
register-emulated)
  mkdir -p "$out"
  emulated 4 120 --nccl-register local --phases allreduce,alltoall --modes eager,graph --tokens 1,16 --iters 5 \
    --warmup 1 --op-iters 2 --time-budget 1 --timeout 60 --out "$out/local-4" >"$out/local-4.log" 2>&1
  expect_rc "$out/local-4.log" $? 0 "local, 4 emulated ranks"
  check_registered_report "$out/local-4/report.json" local 4 || fail "report.json check (local, 4 emulated ranks)"
  grep -q "which does not use registered buffers" "$out/local-4/report.json" || fail "no emulated-ranks note"
  emulated 4 60 --nccl-register symmetric --phases allreduce --tokens 1 --timeout 60 --out "$out/symmetric-4" \
    >"$out/symmetric-4.log" 2>&1
  symmetric_refused "$out/symmetric-4.log" $? 4
  grep -q "emulated ranks talk through NCCL's socket transport" "$out/symmetric-4.log" ||
    fail "the refusal under emulated ranks does not say why"
  echo "ok: local under 4 emulated ranks; symmetric refused there (exit 2) before measuring"
  ;;
emulated-[0-9]*)
  ranks=${check#emulated-}
  emulated "$ranks" 200 --phases allreduce,alltoall --modes eager,graph --tokens 1,16 --iters 5 --warmup 1 \
    --op-iters 2 --time-budget 1 --timeout 60 --out "$out" >"$out.log" 2>&1
  expect_rc "$out.log" $? 0 "$ranks emulated ranks"
  python3 - "$out/report.json" "$ranks" <<'PY' || fail "report.json check"
import json, sys
report, ranks = json.load(open(sys.argv[1])), int(sys.argv[2])
run, results = report["run"], report["results"]
assert run["ranks"] == ranks and run["transport"] == "nccl", (run["ranks"], run["transport"])
assert report["topology"]["kind"] == "emulated", report["topology"]["kind"]
assert any("emulated ranks" in n for n in run["notes"]), "the emulated-ranks note"
points = {(r["phase"], r["tokens"], r["mode"]) for r in results}
want = {(p, t, m) for p in ("allreduce", "dispatch", "combine") for t in (1, 16) for m in ("eager", "graph")}
assert points == want, sorted(want - points)
wrong = [(r["phase"], r["tokens"], r["mode"], r["wrong"]) for r in results if r["wrong"] != 0 or not r["checked"]]
assert not wrong, wrong
for r in results:
    print(f"{r['phase']:9} T={r['tokens']:<3} {r['mode']:5} op {r['step_us']['p50'] / r['ops_per_step']:9.1f} us "
          f"(step p50 / ops), slowest rank {r['slowest_rank']}")
print(f"ok: {ranks} emulated ranks, {len(results)} results, wrong == 0")
PY
  ;;
backends-[0-9]*)
  ranks=${check#backends-}
  backends=nccl,oneshot,twoshot,oneshot-pull
  # shellcheck disable=SC2054  # the commas belong to the values
  flags=(--phases allreduce --allreduce-backends "$backends" --tokens 1,16 --iters 5 --warmup 1 --op-iters 2
         --time-budget 1 --timeout 30)
  if [ "$ranks" = 1 ]; then
    k25 90 --backend nccl --sizes "$config" "${flags[@]}" --modes eager,graph,decode --decode-gap 20 \
      --out "$out" >"$out.log" 2>&1
    expect_rc "$out.log" $? 0 "backends at one rank"
    k25 60 --backend nccl --sizes "$config" "${flags[@]}" --modes eager --allreduce-epilogue add-rmsnorm \
      --out "$out.epilogue" >"$out.epilogue.log" 2>&1
    expect_rc "$out.epilogue.log" $? 0 "backends with the epilogue at one rank"
  else
    emulated "$ranks" 120 "${flags[@]}" --modes eager,graph,decode --decode-gap 20 --decode-skew 5 \
      --out "$out" >"$out.log" 2>&1
    expect_rc "$out.log" $? 0 "backends at $ranks emulated ranks"
    emulated "$ranks" 60 "${flags[@]}" --modes eager --allreduce-epilogue add-rmsnorm --out "$out.epilogue" \
      >"$out.epilogue.log" 2>&1
    expect_rc "$out.epilogue.log" $? 0 "backends with the epilogue at $ranks emulated ranks"
  fi
  python3 - "$out/report.json" "$out.epilogue/report.json" "$ranks" "$backends" "$out/backends-figures.txt" <<'PY' ||
import json, sys
ranks, backends, figures = int(sys.argv[3]), sys.argv[4].split(","), sys.argv[5]
lines = []
for path in sys.argv[1:3]:
    report = json.load(open(path))
    assert report["run"]["ranks"] == ranks, report["run"]["ranks"]
    rows = report["results"] + report.get("backend_results", [])
    rows = [r for r in rows if r["phase"] == "allreduce"]
    seen = {r.get("backend", report["run"]["transport"]) for r in rows}
    assert seen == set(backends), (sorted(seen), backends)
    for r in rows:
        name = r.get("backend", report["run"]["transport"])
        if r.get("not_run"):
            lines.append(f"{path}: {name} T={r['tokens']} {r['mode']}: not run: {r['not_run']}")
            continue
        assert r["wrong"] == 0 and r["checked"], (name, r["tokens"], r["mode"], r["wrong"])
        lines.append(f"{path}: {name:12} T={r['tokens']:<3} {r['mode']:6} {r['bytes_per_op']:>9} B "
                     f"op p50 {r['op_us']['p50']:9.2f} us, step p50 {r['step_us']['p50']:10.1f} us, wrong 0")
    assert any(not r.get("not_run") for r in rows if r.get("backend") != "nccl"), "no peer backend ran"
    lines += [f"{path}: headline: {h}" for h in report.get("headline", [])]
open(figures, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
print(f"ok: {len(backends)} AllReduce backends at {ranks} rank(s), wrong == 0")
PY
    fail "backends report check"
  ;;
emulated-kill)
  # A sweep that lasts minutes unless stopped: 12 token counts, 3 s per point.
  # In the background: a SIGTERM to it ends the job's session (tools/bench/time_limits.sh).
  emulated 4 150 --phases allreduce --modes eager --tokens 1,2,3,4,5,6,7,8,9,10,11,12 --time-budget 3 \
    --iters 1000000 --timeout 20 --out "$out" >"$out.log" 2>&1 &
  job=$!
  if ! wait_until --alive "$job" 80 "a result in $out/journal.jsonl" journaled_a_result "$out/journal.jsonl"; then
    pid_gone "$job" || { kill -TERM "$job"; wait "$job"; }
    cat "$out.log"
    fail "$WAIT_ERROR"
  fi
  victim=$(rank_pid 2) || { kill -TERM "$job"; wait "$job"; fail "rank 2 not found"; }
  before=$(result_lines "$out/journal.jsonl")
  start=$(date +%s.%N)
  kill -KILL "$victim"
  if ! wait_until 60 "the job ending after rank 2 was killed" pid_gone "$job"; then
    kill -TERM "$job"
    wait "$job"
    cat "$out.log"
    fail "$WAIT_ERROR"
  fi
  wait "$job"
  rc=$?
  elapsed=$(seconds_since "$start")
  cat "$out.log"
  echo "job ended $elapsed s after rank 2 was killed; exit code $rc; $before result(s) journaled before"
  [ "$rc" -ne 0 ] || fail "exit code 0 after a rank died"
  [ "$rc" -ne 124 ] || fail "the job ran out of its time limit"
  for rank in 0 1 3; do rank_pid "$rank" >/dev/null && fail "rank $rank left running"; done
  [ "$(result_lines "$out/journal.jsonl")" -ge "$before" ] || fail "the journal lost results"
  k25 30 report "$out/journal.jsonl" --out "$out.rerendered" >"$out.rerendered.log" 2>&1 ||
    { cat "$out.rerendered.log"; fail "the journal does not re-render"; }
  echo "ok: rank 2 killed, job ended after $elapsed s with exit $rc, journal kept $before result(s)"
  ;;
emulated-hang)
  hang_on_rank_2 eager
  ;;
emulated-hang-graph)
  hang_on_rank_2 graph
  ;;
emulated-slowest)
  emulated 4 150 --phases allreduce,alltoall --modes eager,graph --tokens 1,16 --iters 7 --warmup 1 --op-iters 1 \
    --time-budget 3 --inject-delay 2:20000 --out "$out" >"$out.log" 2>&1
  expect_rc "$out.log" $? 0 "late rank 2"
  python3 - "$out/report.json" <<'PY' || fail "slowest rank check"
import json, sys
results = json.load(open(sys.argv[1]))["results"]
named = [(r["phase"], r["tokens"], r["mode"], r["slowest_rank"], round(r["arrival_lead_us"])) for r in results]
assert results and all(r["slowest_rank"] == 2 for r in results), named
print("ok: rank 2 named slowest everywhere:", named)
PY
  ;;
*)
  fail "unknown check"
  ;;
esac
