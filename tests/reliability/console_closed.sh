#!/bin/bash
# Issue 21 item 15: `k25comm ... | head` never kills the run or loses a measurement. The console's reader exits
# after two lines (a real SIGPIPE on the next write); the run goes on, writes every file, and exits 0 as if the
# console were fine: k25comm alone (MPI singleton), under tools/mpirun-k25comm, and `--dry-run`.
# usage: console_closed.sh K25COMM CONFIG WORK_DIR MPIRUN_WRAPPER
set -uo pipefail
K25COMM=$1 config=$2 work=$3 wrapper=$4
rm -rf "$work" && mkdir -p "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# complete_run OUT POINTS: report.json complete, holding every point the journal holds, and the journal closed.
complete_run() {
  python3 - "$1" "$2" <<'PY'
import json, sys
out, points = sys.argv[1], int(sys.argv[2])
report = json.load(open(f"{out}/report.json"))
lines = [json.loads(line) for line in open(f"{out}/journal.jsonl")]
journaled = sum(1 for line in lines if line["type"] == "result")
assert report["run"]["complete"] is True, report["run"].get("incomplete_reason")
assert len(report["results"]) == journaled == points, (len(report["results"]), journaled)
assert lines[-1]["type"] == "run_end", lines[-1]
print(f"ok: {out}: {journaled} results, complete")
PY
}

flags=(--sizes "$config" --tokens 1,4 --iters 20 --time-budget 0.2)
# mpirun aborts a job after more than ten writes to its closed stdout: enough rows, printed apart, to get there.
many=(--sizes "$config" --tokens 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16 --iters 20 --time-budget 0.1)

# 1. k25comm alone: SIGPIPE kills it (exit 141) unless it ignores the signal.
"$K25COMM" "${flags[@]}" --out "$work/alone" 2>"$work/alone.err" | head -n 2 >"$work/alone.head"
rc=${PIPESTATUS[0]}
echo "--- k25comm | head -n 2: exit $rc"; cat "$work/alone.head" "$work/alone.err"
[ "$rc" -eq 0 ] || fail "k25comm | head: exit $rc, expected 0"
[ "$(wc -l <"$work/alone.head")" -eq 2 ] || fail "head did not get its two lines"
complete_run "$work/alone" 6 || fail "k25comm | head: the run's files are not complete"

# 2. Under mpirun through tools/mpirun-k25comm: mpirun itself aborts the job after ten writes to a closed pipe.
K25COMM=$K25COMM "$wrapper" -np 2 "${many[@]}" --out "$work/mpirun" 2>"$work/mpirun.err" | head -n 2 \
  >"$work/mpirun.head"
rc=${PIPESTATUS[0]}
echo "--- mpirun-k25comm -np 2 | head -n 2: exit $rc"; cat "$work/mpirun.head" "$work/mpirun.err"
[ "$rc" -eq 0 ] || fail "mpirun-k25comm | head: exit $rc, expected 0"
grep -q "SIGPIPE" "$work/mpirun.err" && fail "mpirun saw SIGPIPE"
complete_run "$work/mpirun" 48 || fail "mpirun-k25comm | head: the run's files are not complete"

# 3. --dry-run: plan.json is written before the plan is printed.
"$K25COMM" --sizes "$config" --dry-run --ranks 4 --tokens "$(seq -s, 1 200)" --out "$work/plan" \
  2>"$work/plan.err" | head -n 1 >/dev/null
rc=${PIPESTATUS[0]}
echo "--- k25comm --dry-run | head -n 1: exit $rc"; cat "$work/plan.err"
[ "$rc" -eq 0 ] || fail "--dry-run | head: exit $rc, expected 0"
python3 -c "import json,sys; assert len(json.load(open(sys.argv[1]))['plans']) == 200" "$work/plan/plan.json" ||
  fail "--dry-run | head: plan.json is missing or not whole"

[ "$failures" -eq 0 ] || { echo "FAIL: $failures case(s)"; exit 1; }
echo "ok: a console closed by its reader costs nothing: runs complete, files written, exit 0"
