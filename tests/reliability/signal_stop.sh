#!/bin/bash
# Requirement: SIGINT or SIGTERM to the job stops the ranks at the next op boundary; the coordinator writes
# report.json and report.md from what it has, marked incomplete, and the job exits non-zero within 10 s.
# usage: signal_stop.sh K25COMM MPIRUN SIGNAL TARGET OUT DELAY [k25comm flags...]
#   TARGET: mpirun (what a user's Ctrl-C or a batch system does) or rank1 (one rank alone gets the signal)
#   DELAY: seconds to wait after the first journaled result before signalling (to land inside a long burst)
set -uo pipefail
K25COMM=$1 MPIRUN=$2 signal=$3 target=$4 out=$5 delay=$6
shift 6
here=$(dirname "$0")
source "$here/lib.sh"

start_job "$out" "$out.log" "$@"
trap 'kill -KILL $JOB_PID 2>/dev/null' EXIT
wait_for_results "$out/journal.jsonl" 1 180 || { cat "$out.log"; exit 1; }
sleep "$delay"
case $target in
  mpirun) victim=$JOB_PID ;;
  rank1) victim=$(rank_pid "$out" 1) || { echo "FAIL: rank 1 not found"; exit 1; } ;;
  *) echo "unknown target $target"; exit 2 ;;
esac
signal_job "$signal" "$victim" "$out.log"
written=$(python3 -c "import os,sys; print(f'{os.path.getmtime(sys.argv[1]) - float(sys.argv[2]):.2f}')" \
  "$out/report.json" "$MARK" 2>/dev/null || echo "-")
echo "job ended $JOB_SECONDS s after SIG$signal to $target (report.json written after $written s); exit code $JOB_RC"
no_ranks_left "$out" || exit 1
python3 "$here/check_outputs.py" "$out" interrupted || exit 1
echo "ok: figures: SIG$signal to $target: end ${JOB_SECONDS} s, report.json after $written s, exit $JOB_RC"
