#!/bin/bash
# k25comm itself on a GPU host (one rank unless stated), checked from its exit code, output and report.json.
# usage: k25comm_gpu_check.sh CHECK K25COMM DEVICE_COUNT_EXE CONFIG OUT_DIR [MPIRUN]
#   eager-graph     one rank, --backend nccl, eager and graph modes: exit 0, transport nccl, wrong == 0 everywhere
#   watchdog        an injected hang at allreduce 8 tokens op 3 with --timeout 5: exit 3 within the timeout plus
#                   slack, the message names rank, op and token count, and the journal kept the 1-token results
#   too-many-ranks  one more rank than GPUs under mpirun: exit 2 with a clear message, before NCCL is touched
#   device-only     one rank, --device-only, eager and graph: exit 0, wrong == 0, results marked device_only
#   graph-padding   one rank, allreduce at tokens 3 and 5, eager and graph: graph results measured at the capture
#                   sizes 4 and 8 (requested_tokens 3 and 5, the padded count's bytes), eager ones at 3 and 5
#   decode          the decode timing mode: one rank, then 4 emulated ranks (--emulate-ranks), eager and decode,
#                   20 us gaps + 40 us per layer + up to 5 us of skew: exit 0, wrong == 0, decode figures present,
#                   the busy kernels' measured gaps at least the configured ones, a join cost per point
#   register        --nccl-register local and symmetric at one rank (kimi.yaml: AllReduce, dispatch, combine;
#                   kimi-vllm-tp8.yaml: AllReduce and the logits AllGather), eager and graph: exit 0, wrong == 0,
#                   the registration in the config and the notes; then 4 emulated ranks: local runs with wrong == 0
#                   and says sockets cannot use it, symmetric is refused (exit 2, the reason) before measuring
#   emulated-N      N ranks on the visible GPU(s) with --emulate-ranks (N = 4, 8, ...): kimi at 1 and 16 tokens,
#                   eager and graph, wrong == 0 for allreduce, dispatch and combine (8x8 routing matrices),
#                   topology kind "emulated" and its note
#   emulated-kill   4 emulated ranks; SIGKILL of rank 2 mid-sweep: the job ends within the timeout plus slack,
#                   non-zero, and the journal keeps every result gathered before (and re-renders)
#   emulated-hang   4 emulated ranks; an injected hang on rank 2 only: exit 3 within the timeout plus slack, and the
#                   output names rank 2 as the rank where the hang was injected
#   emulated-slowest 4 emulated ranks; rank 2 arrives 20 ms late at every trial: every result names it slowest
# Exits 77 (skipped) where no CUDA device is visible. Ranks inherit the environment (one host), so an MPS pipe
# directory exported by the caller reaches them.
set -u
check=$1 k25comm=$2 device_count=$3 config=$4 out=$5 mpirun=${6:-mpirun}
export k25comm config out mpirun  # emulated() also runs in a child shell: timeout bash -c "$(declare -f emulated); ..."

devices=$("$device_count" 2>/dev/null) || { echo "SKIPPED: no CUDA device visible"; exit 77; }
rm -rf "$out"
fail() { echo "FAIL ($check): $*"; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
# N emulated ranks of k25comm under mpirun, in the background (JOB_PID) or not; output in $out.log.
emulated() {  # RANKS [k25comm flags...]
  local ranks=$1
  shift
  "$mpirun" -np "$ranks" --oversubscribe "$k25comm" --backend nccl --emulate-ranks \
    --sizes "$config" --out "$out" "$@"
}

case "$check" in
eager-graph)
  "$k25comm" --backend nccl --sizes "$config" --phases allreduce,alltoall --modes eager,graph --iters 20 \
    --time-budget 2 --out "$out" >"$out.log" 2>&1
  rc=$?
  cat "$out.log"
  [ "$rc" = 0 ] || fail "exit code $rc"
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
  timeout 120 "$k25comm" --backend nccl --sizes "$config" --phases allreduce --modes eager --tokens 1,8 --iters 5 \
    --timeout 5 --inject-hang allreduce:8:3 --out "$out" >"$out.log" 2>&1
  rc=$?
  end=$(date +%s.%N)
  cat "$out.log"
  elapsed=$(python3 -c "print(f'{$end - $start:.1f}')")
  echo "exit $rc after $elapsed s"
  [ "$rc" = 3 ] || fail "exit code $rc, expected 3"
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
  timeout 120 "$mpirun" -np "$ranks" --oversubscribe "$k25comm" --backend nccl --sizes "$config" --tokens 1 \
    --out "$out" >"$out.log" 2>&1
  rc=$?
  cat "$out.log"
  [ "$rc" = 2 ] || fail "exit code $rc, expected 2"
  grep -qE "runs $ranks ranks but (has $devices visible CUDA device|local ranks [0-9]+ and [0-9]+ would both drive GPU)" \
    "$out.log" || fail "no clear message"
  grep -qiE "NCCL (INFO|WARN)|ncclCommInitRank" "$out.log" && fail "NCCL was touched"
  echo "ok: $ranks ranks on $devices GPU(s) refused before NCCL"
  ;;
device-only)
  "$k25comm" --backend nccl --sizes "$config" --phases allreduce,alltoall --modes eager,graph --tokens 1,16 \
    --iters 20 --time-budget 2 --device-only --out "$out" >"$out.log" 2>&1
  rc=$?
  cat "$out.log"
  [ "$rc" = 0 ] || fail "exit code $rc"
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
  "$k25comm" --backend nccl --sizes "$config" --phases allreduce --modes eager,graph --tokens 3,5 --iters 20 \
    --time-budget 2 --out "$out" >"$out.log" 2>&1
  rc=$?
  cat "$out.log"
  [ "$rc" = 0 ] || fail "exit code $rc"
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
  flags=(--backend nccl --sizes "$config" --phases allreduce,alltoall --modes eager,decode --tokens 1,16
         --decode-gap 20 --decode-layer-gap 40 --decode-skew 5 --iters 10 --warmup 2 --op-iters 5 --time-budget 2)
  "$k25comm" "${flags[@]}" --out "$out" >"$out.log" 2>&1
  rc=$?
  cat "$out.log"
  [ "$rc" = 0 ] || fail "exit code $rc (one rank)"
  check_decode_report "$out/report.json" 1 || fail "report.json check (one rank)"
  grep -q "each gap is a GPU busy kernel on the op stream" "$out/report.json" || fail "no decode note"
  timeout 300 "$mpirun" -np 4 --oversubscribe "$k25comm" "${flags[@]}" --emulate-ranks --timeout 60     --out "$out-4" >"$out-4.log" 2>&1
  rc=$?
  cat "$out-4.log"
  [ "$rc" = 0 ] || fail "exit code $rc (4 emulated ranks)"
  check_decode_report "$out-4/report.json" 4 || fail "report.json check (4 emulated ranks)"
  ;;
register)
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
  mkdir -p "$out"
  vllm_config=$(dirname "$config")/kimi-vllm-tp8.yaml
  for mode in local symmetric; do
    for cfg in "$config" "$vllm_config"; do
      name=$mode-$(basename "$cfg" .yaml)
      "$k25comm" --backend nccl --sizes "$cfg" --nccl-register "$mode" --modes eager,graph --tokens 1,16 \
        --iters 10 --warmup 2 --op-iters 3 --time-budget 1 --out "$out/$name" >"$out/$name.log" 2>&1
      rc=$?
      cat "$out/$name.log"
      [ "$rc" = 0 ] || fail "exit code $rc ($name, one rank)"
      check_registered_report "$out/$name/report.json" "$mode" 1 || fail "report.json check ($name)"
    done
  done
  timeout 300 bash -c "$(declare -f emulated); out=$out/local-4; emulated 4 --nccl-register local \
    --phases allreduce,alltoall --modes eager,graph --tokens 1,16 --iters 5 --warmup 1 --op-iters 2 \
    --time-budget 1 --timeout 60" >"$out/local-4.log" 2>&1
  rc=$?
  cat "$out/local-4.log"
  [ "$rc" = 0 ] || fail "exit code $rc (local, 4 emulated ranks)"
  check_registered_report "$out/local-4/report.json" local 4 || fail "report.json check (local, 4 emulated ranks)"
  grep -q "which does not use registered buffers" "$out/local-4/report.json" || fail "no emulated-ranks note"
  timeout 300 bash -c "$(declare -f emulated); out=$out/symmetric-4; emulated 4 --nccl-register symmetric \
    --phases allreduce --tokens 1 --timeout 60" >"$out/symmetric-4.log" 2>&1
  rc=$?
  cat "$out/symmetric-4.log"
  [ "$rc" = 2 ] || fail "exit code $rc, expected 2 (symmetric, 4 emulated ranks)"
  grep -q "emulated ranks talk through NCCL's socket transport" "$out/symmetric-4.log" ||
    fail "the refusal does not say why"
  ! grep -q "^# sweep:" "$out/symmetric-4.log" || fail "the refused run measured"
  echo "ok: symmetric refused under emulated ranks (exit 2) before measuring"
  ;;
emulated-[0-9]*)
  ranks=${check#emulated-}
  timeout 300 bash -c "$(declare -f emulated); emulated $ranks --phases allreduce,alltoall --modes eager,graph \
    --tokens 1,16 --iters 5 --warmup 1 --op-iters 2 --time-budget 1 --timeout 60" >"$out.log" 2>&1
  rc=$?
  cat "$out.log"
  [ "$rc" = 0 ] || fail "exit code $rc"
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
emulated-kill)
  export K25COMM=$k25comm MPIRUN=$mpirun RANKS=4
  # shellcheck source=../reliability/lib.sh
  if [ -f "$here/../reliability/lib.sh" ]; then source "$here/../reliability/lib.sh"; else source "$here/lib.sh"; fi
  start_job "$out" "$out.log" --backend nccl --emulate-ranks --sizes "$config" --phases allreduce \
    --tokens 1,2,3,4,5,6,7,8,9,10,11,12 --time-budget 3 --iters 1000000 --timeout 20
  trap 'kill -KILL $JOB_PID 2>/dev/null' EXIT
  wait_for_results "$out/journal.jsonl" 1 180 || { cat "$out.log"; exit 1; }
  victim=$(rank_pid "$out" 2) || fail "rank 2 not found"
  before=$(result_lines "$out/journal.jsonl")
  mark_time
  kill -KILL "$victim"
  wait_job 60 || { cat "$out.log"; fail "the job did not end within 60 s of the kill (timeout 20 s)"; }
  cat "$out.log"
  echo "job ended $JOB_SECONDS s after rank 2 was killed; exit code $JOB_RC; $before result(s) journaled before"
  [ "$JOB_RC" -ne 0 ] || fail "exit code 0 after a rank died"
  no_ranks_left "$out" || fail "ranks left running"
  [ "$(result_lines "$out/journal.jsonl")" -ge "$before" ] || fail "the journal lost results"
  "$k25comm" report "$out/journal.jsonl" --out "$out-rerendered" >/dev/null || fail "the journal does not re-render"
  echo "ok: rank 2 killed, job ended after $JOB_SECONDS s with exit $JOB_RC, journal kept $before result(s)"
  ;;
emulated-hang)
  start=$(date +%s.%N)
  timeout 150 bash -c "$(declare -f emulated); emulated 4 --phases allreduce --modes eager --tokens 1,8 --iters 5 \
    --timeout 10 --inject-hang allreduce:8:3:2" >"$out.log" 2>&1
  rc=$?
  end=$(date +%s.%N)
  cat "$out.log"
  elapsed=$(python3 -c "print(f'{$end - $start:.1f}')")
  echo "exit $rc after $elapsed s"
  [ "$rc" = 3 ] || fail "exit code $rc, expected 3"
  grep -q "rank 2 of 4: allreduce at 8 tokens, op 3 of .* did not finish (a hang was injected there" "$out.log" ||
    fail "the output does not name rank 2 as the rank with the injected hang"
  [ -s "$out/journal.jsonl" ] || fail "the journal lost the results gathered before the hang"
  echo "ok: injected hang on rank 2 of 4: exit 3 after $elapsed s, rank 2 named"
  ;;
emulated-slowest)
  timeout 200 bash -c "$(declare -f emulated); emulated 4 --phases allreduce,alltoall --modes eager,graph \
    --tokens 1,16 --iters 7 --warmup 1 --op-iters 1 --time-budget 3 --inject-delay 2:20000" >"$out.log" 2>&1
  rc=$?
  cat "$out.log"
  [ "$rc" = 0 ] || fail "exit code $rc"
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
