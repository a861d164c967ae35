#!/bin/bash
# Requirement (issue 14, part 4, on one host): a rank that stops answering (SIGSTOP: alive, but silent) mid-sweep
# on 4 ranks ends the job with exit code 3 within the collective timeout plus slack; the other ranks' message names
# the point (matching POINT, an extended regex) and rank 2 with its host; the journal keeps every result gathered
# before. With Kimi-sized AllReduce bursts the peers wait inside the transport's MPI_Allreduce (the watchdog
# thread's path); with the smoke config mostly in the measure loop's polled collectives.
# usage: rank_stopped.sh K25COMM MPIRUN OUT POINT [k25comm flags...]   (--timeout 3 is added)
set -uo pipefail
K25COMM=$1 MPIRUN=$2 out=$3 point=$4
shift 4
here=$(dirname "$0")
source "$here/lib.sh"
timeout_s=3

start_job "$out" "$out.log" "$@" --timeout "$timeout_s"
trap 'kill -KILL $JOB_PID 2>/dev/null; [ -n "${victim:-}" ] && kill -KILL "$victim" 2>/dev/null' EXIT
wait_for_results "$out/journal.jsonl" 1 180 || { cat "$out.log"; exit 1; }
victim=$(rank_pid "$out" 2) || { echo "FAIL: rank 2 not found"; exit 1; }
before=$(result_lines "$out/journal.jsonl")
mark_time
kill -STOP "$victim"
# the timeout, at most min(timeout, 5 s) asking the peers, then MPI_Abort and mpirun's cleanup
wait_job $((timeout_s + timeout_s + 25)) || { cat "$out.log"; exit 1; }
cat "$out.log"
echo "job ended $JOB_SECONDS s after rank 2 (pid $victim) was stopped; exit code $JOB_RC; $before results before"
[ "$JOB_RC" -eq 3 ] || { echo "FAIL: exit code $JOB_RC, expected 3"; exit 1; }
pattern="^k25comm: error: rank [013] of 4 \([^)]+\): $point did not complete within the $timeout_s s timeout \(transport.timeout_s\); ranks that stopped answering within $timeout_s s: 2 \([^)]+\); ending the job \(MPI_Abort, exit code 3\)$"
grep -qE "$pattern" "$out.log" || { echo "FAIL: no message matching: $pattern"; exit 1; }
no_ranks_left "$out" || exit 1
python3 "$here/check_outputs.py" "$out" journal --min-results "$before" || exit 1
echo "ok: figures: stopped-rank end ${JOB_SECONDS} s (timeout $timeout_s s), exit $JOB_RC"
