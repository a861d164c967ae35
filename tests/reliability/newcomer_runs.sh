#!/bin/bash
# Issue 21 item 17 and the headline's tags, with real runs: one rank on the host transport says it communicates
# nothing; more ranks than cores through tools/mpirun-k25comm is said at launch and tagged in the headline; a
# bad -np is refused (exit 2); --dry-run writes plan.json into a folder of its own, never beside a real run.
# usage: newcomer_runs.sh K25COMM MPIRUN CONFIG WORK_DIR MPIRUN_WRAPPER
set -uo pipefail
K25COMM=$1 MPIRUN=$2 config=$(realpath "$3") work=$4 wrapper=$5
rm -rf "$work" && mkdir -p "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
headline() { python3 -c "import json,sys; print('\n'.join(json.load(open(sys.argv[1]))['headline']))" "$1/report.json"; }
quick=(--sizes "$config" --tokens 1 --iters 5 --time-budget 0.2 --phases allreduce)

# 1. One rank on the host transport.
"$MPIRUN" -np 1 "$K25COMM" "${quick[@]}" --out "$work/one" >"$work/one.log" 2>&1 || fail "one rank: exit $?"
cat "$work/one.log"
grep -q "^# note: one rank: the host transport communicates nothing" "$work/one.log" || fail "no one-rank note"
headline "$work/one" | grep -q "\[host transport; one rank: nothing crosses a link\]$" || fail "no one-rank tag"

# 2. More ranks than cores: said by the launcher script and tagged in the headline.
cores=$(getconf _NPROCESSORS_ONLN)
ranks=$((cores + 1))
if [ "$ranks" -le 17 ]; then
  K25COMM=$K25COMM "$wrapper" -np "$ranks" "${quick[@]}" --out "$work/busy" >"$work/busy.log" 2>"$work/busy.err" ||
    fail "oversubscribed: exit $?"
  cat "$work/busy.err"
  grep -q "^mpirun-k25comm: $ranks ranks on $(nproc) cores: --oversubscribe; ranks share cores" "$work/busy.err" ||
    fail "mpirun-k25comm did not say it oversubscribes"
  headline "$work/busy" | grep -q "oversubscribed: $ranks ranks on $cores cores" || fail "no oversubscribed tag"
else
  echo "note: $cores cores: the oversubscribed case is left out here"
fi

# 3. A bad -np: exit 2 with the reason, before mpirun.
for bad in 0 x ""; do
  out=$(K25COMM=$K25COMM "$wrapper" -np $bad --sizes "$config" 2>&1)
  rc=$?
  [ "$rc" -eq 2 ] || fail "mpirun-k25comm -np '$bad': exit $rc, expected 2"
  echo "$out" | grep -q "^mpirun-k25comm: " || fail "mpirun-k25comm -np '$bad': no reason: $out"
done

# 4. --dry-run after a real run in the same folder: plan.json goes to k25comm-plan/, not into the run's output
#    folder (the config's output.dir), unless --out names a folder.
mkdir -p "$work/cwd"
run_dir=$work/cwd/$(cd "$work/cwd" && "$MPIRUN" -np 2 "$K25COMM" "${quick[@]}" 2>&1 |
  sed -n 's|^# wrote \(.*\)/report.json$|\1|p')
[ -s "$run_dir/report.json" ] || fail "the real run without --out wrote no report.json"
(cd "$work/cwd" && "$K25COMM" --sizes "$config" --dry-run --ranks 2 >"$work/dry.log" 2>&1) || fail "--dry-run: exit $?"
grep -q "^# plan written to k25comm-plan/plan.json$" "$work/dry.log" || fail "--dry-run did not name k25comm-plan/plan.json"
[ -s "$work/cwd/k25comm-plan/plan.json" ] || fail "no k25comm-plan/plan.json"
[ -e "$run_dir/plan.json" ] && fail "--dry-run wrote plan.json beside the last run, into $run_dir"
(cd "$work/cwd" && "$K25COMM" --sizes "$config" --dry-run --ranks 2 --out chosen >/dev/null 2>&1) || fail "--dry-run --out"
[ -s "$work/cwd/chosen/plan.json" ] || fail "--dry-run --out chosen: no chosen/plan.json"

[ "$failures" -eq 0 ] || { echo "FAIL: $failures case(s)"; exit 1; }
echo "ok: one rank, oversubscription, bad -np and --dry-run say what they are"
