#!/bin/bash
# The AllReduce backends on the host transport under mpirun, checked from the exit code, the console and the
# report (check_backends.py): CASE is one of
#   run RANKS TOKENS MODES BACKENDS [k25comm flags...]  exit 0, every backend's rows, wrong 0 each, table, best
#   wrong                      --inject-wrong twoshot at 4 ranks: exit 1, twoshot WRONG in every row, never best
#   hang                       --inject-hang on rank 1 in oneshot's burst at 3 ranks, --timeout 3: exit 3, the
#                              message names the backend, the op's size and rank 1; report.json and report.md kept
#                              (incomplete) with the rows measured before
#   not-run                    --peer-max-bytes 4096: the peer backends' rows at 16 tokens (8192 B) say why, exit 0
# usage: backends_check.sh MPIRUN K25COMM SOURCE_DIR OUT PYTHON CASE [ARGS...]
set -uo pipefail
mpirun=$1 k25comm=$2 source=$3 out=$4 python=$5 case_name=$6
shift 6
checker=$source/tests/mpi/check_backends.py
rm -rf "$out" "$out".*
fail() { echo "FAIL ($case_name): $*"; exit 1; }
k25() {  # RANKS CONFIG [flags...]: the run, its console in $out.console.txt; returns its exit code
  local ranks=$1 config=$2
  shift 2
  timeout 280 "$mpirun" -np "$ranks" --oversubscribe "$k25comm" --sizes "$config" --phases allreduce --no-plots \
    --out "$out" "$@" >"$out.console.txt" 2>&1
  local rc=$?
  cat "$out.console.txt"
  return $rc
}
smoke=$source/configs/smoke.yaml
case "$case_name" in
run)
  ranks=$1 tokens=$2 modes=$3 backends=$4
  shift 4
  config=$smoke
  [[ "$modes" == *decode* ]] && config=$source/configs/smoke-decode.yaml
  k25 "$ranks" "$config" --tokens "$tokens" --modes "$modes" --allreduce-backends "$backends" --iters 3 \
    --op-iters 2 --time-budget 0.5 "$@" || fail "exit $?"
  epilogue=()
  [[ " $* " == *" add-rmsnorm "* ]] && epilogue=(--epilogue)
  "$python" "$checker" "$out" --ranks "$ranks" --backends "$backends" --tokens "$tokens" --modes "$modes" \
    --console "$out.console.txt" "${epilogue[@]}" || exit 1
  ;;
wrong)
  k25 4 "$smoke" --tokens 1,4 --allreduce-backends mpi,oneshot,twoshot --inject-wrong twoshot --iters 3
  rc=$?
  [ "$rc" = 1 ] || fail "exit $rc, expected 1 (wrong elements)"
  grep -q "FAILED: .* wrong elements in the correctness pass" "$out.console.txt" || fail "no FAILED line"
  "$python" "$checker" "$out" --ranks 4 --backends mpi,oneshot,twoshot --tokens 1,4 --expect-wrong twoshot || exit 1
  ;;
hang)
  k25 3 "$smoke" --tokens 1,4 --allreduce-backends mpi,oneshot,twoshot --inject-hang allreduce:4:2:1:oneshot \
    --timeout 3 --iters 3
  rc=$?
  [ "$rc" = 3 ] || fail "exit $rc, expected 3"
  grep -qE "^k25comm: error: oneshot AllReduce backend: allreduce at 4 tokens, op 2 of 8 \(layer 1\) \(2048 bytes\): rank 1 did not arrive at its start barrier .* within the 3 s timeout" \
    "$out.console.txt" || fail "the message does not name the backend, the op's size and rank 1"
  [ -s "$out/report.md" ] || fail "no report.md"
  grep -q "^# incomplete: oneshot AllReduce backend" "$out.console.txt" || fail "the run is not said incomplete"
  "$python" - "$out/report.json" <<'PY' || fail "report.json check"
import json, sys
report = json.load(open(sys.argv[1]))
assert not report["run"]["complete"], "complete"
assert report["run"]["incomplete_reason"].startswith("oneshot AllReduce backend"), report["run"]["incomplete_reason"]
rows = {(r.get("backend"), r["tokens"]) for r in report["results"] + report.get("backend_results", [])}
assert rows == {("mpi", 1), ("oneshot", 1), ("twoshot", 1)}, sorted(rows)
print("ok: the backends measured before the hang are in report.json:", sorted(rows))
PY
  ;;
not-run)
  k25 2 "$smoke" --tokens 1,16 --allreduce-backends mpi,oneshot,twoshot --peer-max-bytes 4096 --iters 3 ||
    fail "exit $?"
  grep -q "oneshot not run: oneshot: 8192 bytes per op is above its 4096-byte buffer" "$out.console.txt" ||
    fail "the console does not say why oneshot did not run"
  "$python" "$checker" "$out" --ranks 2 --backends mpi,oneshot,twoshot --tokens 1,16 --expect-not-run oneshot:16 \
    --expect-not-run twoshot:16 || exit 1
  ;;
*)
  fail "unknown case"
  ;;
esac
echo "ok: backends_check $case_name"
