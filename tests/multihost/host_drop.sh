#!/bin/bash
# Requirement (issue 14, part 4): on 2 emulated hosts x 2 ranks, the second host's link is cut at the switch
# mid-sweep. The job ends with exit code 3 within the timeout plus slack; the surviving ranks' message names the
# point (call, phase, tokens) and the ranks that stopped answering with their host; the journal keeps every result
# gathered before the cut and `k25comm report` renders it.
# Slack: after its timeout a rank waits at most min(timeout, 5 s) for its peers' answers, then calls MPI_Abort;
# Open MPI's mpirun then ends once TCP gives up on the lost host's daemon (the emulated hosts set
# net.ipv4.tcp_retries2 = 5, about 12 s; see tools/emulated-hosts).
# usage: host_drop.sh K25COMM OUT
set -uo pipefail
K25COMM=$1 out=$2
K25_SOURCE=$(cd "$(dirname "$0")/../.." && pwd)
source "$K25_SOURCE/tests/multihost/lib.sh"
timeout_s=5
slack_s=45

emulated_hosts_up 2
rm -rf "$out"
# A sweep that lasts minutes unless stopped: 16 token counts, 3 s per point.
"$EH/mpirun" -np 4 -H "${HOST[1]}:2,${HOST[2]}:2" "$K25COMM" --sizes "$K25_SOURCE/configs/smoke.yaml" \
  --out "$out" --tokens 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 --time-budget 3 --iters 1000000 \
  --timeout "$timeout_s" >"$out.log" 2>&1 &
job=$!
FIXTURE_DOWN+=("kill -KILL $job 2>/dev/null")
wait_until --alive "$job" 120 "2 results journaled" has_results "$out/journal.jsonl" 2 ||
  { cat "$out.log"; fail "$WAIT_ERROR"; }
"$K25_SOURCE/tools/emulated-hosts" cut "$EH" "${HOST[2]}" || fail "could not cut ${HOST[2]}'s link"
cut_at=$(date +%s.%N)
before=$(result_lines "$out/journal.jsonl")
limit=$((timeout_s + slack_s))
wait_until "$limit" "the job's end after the cut" pid_gone "$job" || { cat "$out.log"; fail "$WAIT_ERROR"; }
wait "$job"
rc=$?
seconds=$(python3 -c "import sys,time; print(f'{time.time() - float(sys.argv[1]):.1f}')" "$cut_at")
cat "$out.log"
echo "job ended $seconds s after ${HOST[2]}'s link was cut (timeout $timeout_s s); exit code $rc;" \
  "$before results journaled before the cut"
[ "$rc" -eq 3 ] || fail "exit code $rc, expected 3"
grep -E "^k25comm: error: rank [01] of 4 \(${HOST[1]}\): MPI_I?[A-Za-z]+ .* (allreduce|dispatch|combine) at [0-9]+ tokens.* did not complete within the $timeout_s s timeout \(transport.timeout_s\); ranks that stopped answering within $timeout_s s: 2, 3 \(${HOST[2]}\); ending the job \(MPI_Abort, exit code 3\)$" \
  "$out.log" || fail "no message naming the point and ranks 2, 3 on ${HOST[2]}"
python3 - "$out/journal.jsonl" "$before" <<'PY' || exit 1
import json, sys
records = [json.loads(line) for line in open(sys.argv[1])]
results = [r for r in records if r["type"] == "result"]
assert records[0]["type"] == "run_start", "journal starts with run_start"
assert len(results) >= int(sys.argv[2]), f"{len(results)} results, {sys.argv[2]} were journaled before the cut"
assert all(r["result"]["wrong"] == 0 for r in results), "wrong elements"
print(f"journal: {len(results)} results, every line whole")
PY
"$K25COMM" report "$out/journal.jsonl" --out "$out-rerendered" >/dev/null || fail "k25comm report of the journal failed"
[ -s "$out-rerendered/report.json" ] || fail "no re-rendered report.json"
echo "ok: host drop ended in $seconds s with exit 3 and the ranks named; figures: end ${seconds} s after the cut"
