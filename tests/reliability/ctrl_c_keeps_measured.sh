#!/bin/bash
# Issue 21 item 13: Ctrl-C under mpirun (SIGINT to mpirun, which passes it on to the ranks as SIGTERM) reads as an
# interruption the user caused, and a serve level it cuts short keeps the requests that completed: the level is
# in report.json and the journal, marked interrupted, with a note; the same wording during the sweep.
# usage: ctrl_c_keeps_measured.sh K25COMM MPIRUN CONFIG OUT FAKE_SERVER
set -uo pipefail
K25COMM=$1 MPIRUN=$2 config=$3 out=$4 server=$5
source "$(dirname "$0")/lib.sh"

start_fake_server "$out.server.log" "$server" --itl-ms 10 --ttft-ms 20

# 1. The serve phase: 400 requests of 16 x 10 ms at 2 streams (about 35 s); Ctrl-C once 6 counted ones have
#    finished (after the level's 2 warm-up requests).
RANKS=2 start_job "$out/serve" "$out.serve.log" --sizes "$config" --phases serve --endpoint "$SERVER_URL" \
  --concurrency 2 --requests 400 --max-tokens 16
wait_server_requests 8 60 "$out.serve.log"
signal_job INT "$JOB_PID" "$out.serve.log"
no_ranks_left "$out/serve" || exit 1
python3 - "$out/serve" <<'PY' || exit 1
import json, sys
out = sys.argv[1]
report = json.load(open(f"{out}/report.json"))
run, serve = report["run"], report["serve"]
assert run["complete"] is False, "report.json not marked incomplete"
reason = run["incomplete_reason"]
assert reason.startswith("serve phase interrupted by SIGTERM: Ctrl-C under mpirun"), reason
assert "during concurrency 2" in reason and "kept as a partial level" in reason, reason
assert len(serve["levels"]) == 1, serve["levels"]
level = serve["levels"][0]
assert level["interrupted"] is True and level["planned_requests"] == 400, level
assert level["completed"] >= 6 and level["tpot_ms"] is not None, level
note = f"partial level: serve C=2 was interrupted: its figures are over the {level['completed']} of 400 requests"
assert any(n.startswith(note) for n in run["notes"]), run["notes"]
lines = [json.loads(line) for line in open(f"{out}/journal.jsonl")]
assert [l["level"]["completed"] for l in lines if l["type"] == "serve_level"] == [level["completed"]], lines
assert lines[-1]["type"] == "run_end" and lines[-1]["complete"] is False, lines[-1]
print(f"ok: serve level kept: {level['completed']} of 400 requests, marked interrupted")
PY

# 2. The sweep: the same words for a Ctrl-C between points.
RANKS=2 start_job "$out/sweep" "$out.sweep.log" --sizes "$config" --tokens 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 \
  --time-budget 3 --iters 1000000
wait_for_results "$out/sweep/journal.jsonl" 1 120 || { cat "$out.sweep.log"; exit 1; }
signal_job INT "$JOB_PID" "$out.sweep.log"
python3 - "$out/sweep" <<'PY' || exit 1
import json, sys
run = json.load(open(f"{sys.argv[1]}/report.json"))["run"]
assert run["complete"] is False
assert run["incomplete_reason"].startswith("interrupted by SIGTERM: Ctrl-C under mpirun"), run["incomplete_reason"]
assert "signal 15" not in run["incomplete_reason"], run["incomplete_reason"]
print("ok: the sweep's reason reads as the user's Ctrl-C")
PY
grep -q "interrupted by signal" "$out.sweep.log" "$out.serve.log" && { echo "FAIL: a bare signal number"; exit 1; }
echo "ok: Ctrl-C under mpirun: the user's interruption, the measured requests kept"
