#!/bin/bash
# k25comm itself on a GPU host (one rank unless stated), checked from its exit code, output and report.json.
# usage: k25comm_gpu_check.sh CHECK K25COMM DEVICE_COUNT_EXE CONFIG OUT_DIR [MPIRUN]
#   eager-graph     one rank, --backend nccl, eager and graph modes: exit 0, transport nccl, wrong == 0 everywhere
#   watchdog        an injected hang at allreduce 8 tokens op 3 with --timeout 5: exit 3 within the timeout plus
#                   slack, the message names rank, op and token count, and the journal kept the 1-token results
#   too-many-ranks  one more rank than GPUs under mpirun: exit 2 with a clear message, before NCCL is touched
# Exits 77 (skipped) where no CUDA device is visible.
set -u
check=$1 k25comm=$2 device_count=$3 config=$4 out=$5 mpirun=${6:-mpirun}

devices=$("$device_count" 2>/dev/null) || { echo "SKIPPED: no CUDA device visible"; exit 77; }
rm -rf "$out"
fail() { echo "FAIL ($check): $*"; exit 1; }

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
  grep -q "op #3 " "$out.log" || fail "the message does not name the op"
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
  grep -q "runs $ranks ranks but has $devices visible CUDA device" "$out.log" || fail "no clear message"
  grep -qiE "NCCL (INFO|WARN)|ncclCommInitRank" "$out.log" && fail "NCCL was touched"
  echo "ok: $ranks ranks on $devices GPU(s) refused before NCCL"
  ;;
*)
  fail "unknown check"
  ;;
esac
