#!/bin/bash
# Requirement: a rank killed (SIGKILL) mid-sweep on 4 ranks ends the whole job within 30 s with a non-zero exit
# code; the journal keeps every result gathered before, and `k25comm report` renders it.
# usage: rank_killed.sh K25COMM MPIRUN CONFIG OUT
set -uo pipefail
K25COMM=$1 MPIRUN=$2 config=$3 out=$4
here=$(dirname "$0")
source "$here/lib.sh"

# A sweep that lasts minutes unless stopped: 16 token counts, 3 s per point.
start_job "$out" "$out.log" --sizes "$config" --tokens 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 \
  --time-budget 3 --iters 1000000
trap 'kill -KILL $JOB_PID 2>/dev/null' EXIT
wait_for_results "$out/journal.jsonl" 1 120 || { cat "$out.log"; exit 1; }
victim=$(rank_pid "$out" 2) || { echo "FAIL: rank 2 not found"; exit 1; }
before=$(result_lines "$out/journal.jsonl")
mark_time
kill -KILL "$victim"
wait_job 30 || { cat "$out.log"; exit 1; }
cat "$out.log"
echo "job ended $JOB_SECONDS s after rank 2 (pid $victim) was killed; exit code $JOB_RC; $before results journaled before"
[ "$JOB_RC" -ne 0 ] || { echo "FAIL: exit code 0 after a rank died"; exit 1; }
no_ranks_left "$out" || exit 1
python3 "$here/check_outputs.py" "$out" journal --min-results "$before" || exit 1
"$K25COMM" report "$out/journal.jsonl" --out "$out-rerendered" || { echo "FAIL: k25comm report failed"; exit 1; }
python3 "$here/check_outputs.py" "$out" rerendered "$out-rerendered" || exit 1
echo "ok: figures: rank-kill end ${JOB_SECONDS} s, exit $JOB_RC"
