#!/bin/bash
# Helpers of the reliability tests: start a k25comm job in the background, wait for journal results, find a
# rank's pid, wait for the job's end with a deadline (tests/common/wait.sh), start the fake OpenAI server and wait
# for the requests it finished. Source it; K25COMM and MPIRUN must be
# set.
source "$(dirname "${BASH_SOURCE[0]}")/../common/wait.sh"
source "$(dirname "${BASH_SOURCE[0]}")/../common/journal.sh"
source "$(dirname "${BASH_SOURCE[0]}")/../common/processes.sh"

# start_job OUT LOG [k25comm flags...]: mpirun -np ${RANKS:-4} in the background; sets JOB_PID.
start_job() {
  local out=$1 log=$2
  shift 2
  rm -rf "$out"
  "$MPIRUN" -np "${RANKS:-4}" --oversubscribe "$K25COMM" --out "$out" "$@" >"$log" 2>&1 &
  JOB_PID=$!
}

# start_fake_server LOG SERVER_SCRIPT [server flags...]: the fake OpenAI server on a port of its own choosing
# (at most 120 s); sets SERVER_PID and SERVER_URL and a trap that ends the server and the job. Ends the test when
# the server names no port within 30 s.
start_fake_server() {
  local log=$1 script=$2
  shift 2
  python3 "$script" --port 0 --max-seconds 120 "$@" >"$log" 2>&1 &
  SERVER_PID=$!
  trap 'kill $SERVER_PID 2>/dev/null; kill -KILL ${JOB_PID:-} 2>/dev/null' EXIT
  port_from_log "$log" "$SERVER_PID" 30 || { cat "$log"; echo "FAIL: $WAIT_ERROR"; exit 1; }
  SERVER_URL="http://127.0.0.1:$SERVER_PORT"
}

# wait_server_requests COUNT SECONDS JOB_LOG: waits until the fake server finished COUNT requests, while the job
# lives; ends the test (printing JOB_LOG) when it does not within SECONDS.
wait_server_requests() {
  wait_until --alive "$JOB_PID" "$2" "$1 request(s) finished by the server" python3 -c "import json, sys, urllib.request
sys.exit(len(json.load(urllib.request.urlopen(sys.argv[1] + '/stats', timeout=5))['requests']) < int(sys.argv[2]))" \
    "$SERVER_URL" "$1" || { cat "$3"; echo "FAIL: $WAIT_ERROR"; exit 1; }
}

# wait_for_results JOURNAL COUNT SECONDS: waits until the journal holds COUNT results; fails on timeout or when
# the job ended first.
wait_for_results() {
  wait_until --alive "$JOB_PID" "$3" "$2 result(s) in $1" has_results "$1" "$2" || { echo "FAIL: $WAIT_ERROR"; return 1; }
}

# rank_pids OUT: the pids of the k25comm ranks writing to OUT (not mpirun).
rank_pids() {
  local p
  for p in $(pgrep -f -- "--out $1( |\$)"); do
    grep -qz '^OMPI_COMM_WORLD_RANK=' "/proc/$p/environ" 2>/dev/null && echo "$p"
  done
  return 0
}

# rank_pid OUT RANK: the pid of rank RANK of the job writing to OUT.
rank_pid() {
  local p
  for p in $(rank_pids "$1"); do
    environ_has "$p" "OMPI_COMM_WORLD_RANK=$2" && { echo "$p"; return 0; }
  done
  return 1
}

# wait_job SECONDS: waits for mpirun to end within SECONDS (killing the job and failing otherwise); sets
# JOB_RC and JOB_SECONDS (time since MARK, set by mark_time).
mark_time() { MARK=$(date +%s.%N); }
wait_job() {
  if ! wait_until "$1" "the job's end" pid_gone "$JOB_PID"; then
    echo "FAIL: $WAIT_ERROR"
    kill -KILL "$JOB_PID" 2>/dev/null
    wait "$JOB_PID" 2>/dev/null
    return 1
  fi
  wait "$JOB_PID"
  JOB_RC=$?
  JOB_SECONDS=$(python3 -c "import sys,time; print(f'{time.time() - float(sys.argv[1]):.2f}')" "$MARK")
}

# signal_job SIGNAL PID LOG: sends SIGNAL (INT, TERM, ...) to PID (mpirun or a rank) at MARK, then waits for the
# job's end within 10 s and prints LOG; ends the test when the job outlives that or exits 0.
signal_job() {
  mark_time
  kill "-$1" "$2"
  wait_job 10 || { cat "$3"; exit 1; }
  cat "$3"
  [ "$JOB_RC" -ne 0 ] || { echo "FAIL: exit code 0 after SIG$1"; exit 1; }
}

# no_ranks_left OUT: fails when a rank of the job writing to OUT is still there.
no_ranks_left() {
  local left
  left=$(rank_pids "$1")
  [ -z "$left" ] || { echo "FAIL: ranks still running: $left"; return 1; }
}
