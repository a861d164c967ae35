#!/bin/bash
# Requirement 2 in the serve phase: SIGTERM to mpirun while rank 0 streams from the endpoint ends the job within
# 10 s with a non-zero exit, report.json marked incomplete with the serve phase's reason, the journal closed.
# usage: serve_signal_stop.sh K25COMM MPIRUN CONFIG OUT FAKE_SERVER
set -uo pipefail
K25COMM=$1 MPIRUN=$2 config=$3 out=$4 server=$5
source "$(dirname "$0")/lib.sh"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 "$server" --port "$port" --itl-ms 20 --max-seconds 120 >"$out.server.log" 2>&1 &
server_pid=$!
trap 'kill $server_pid 2>/dev/null; kill -KILL $JOB_PID 2>/dev/null' EXIT
for _ in $(seq 50); do python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null && break; sleep 0.1; done

RANKS=2 start_job "$out" "$out.log" --sizes "$config" --phases serve --endpoint "http://127.0.0.1:$port" \
  --concurrency 4 --requests 400 --max-tokens 64
sleep 4  # past the endpoint check, inside the first level (400 requests of 64 x 20 ms at 4 streams: minutes)
kill -0 "$JOB_PID" 2>/dev/null || { cat "$out.log"; echo "FAIL: the job ended before the signal"; exit 1; }
mark_time
kill -TERM "$JOB_PID"
wait_job 10 || { cat "$out.log"; exit 1; }
cat "$out.log"
[ "$JOB_RC" -ne 0 ] || { echo "FAIL: exit code 0 after SIGTERM"; exit 1; }
no_ranks_left "$out" || exit 1
python3 - "$out" <<'PY' || exit 1
import json, sys
out = sys.argv[1]
report = json.load(open(f"{out}/report.json"))
run, serve = report["run"], report["serve"]
assert run["complete"] is False, "report.json not marked incomplete"
assert run["incomplete_reason"].startswith("serve phase interrupted by SIGTERM"), run["incomplete_reason"]
assert serve["stopped_reason"].startswith("interrupted by SIGTERM"), serve
lines = [json.loads(line) for line in open(f"{out}/journal.jsonl")]
assert lines[-1]["type"] == "run_end" and lines[-1]["complete"] is False, lines[-1]
print("ok: serve phase stopped, reports written and marked incomplete")
PY
echo "ok: figures: SIGTERM during the serve phase: end ${JOB_SECONDS} s, exit $JOB_RC"
