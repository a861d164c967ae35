#!/bin/bash
# Typos get one line naming the nearest flag or command, and exit code 2.
# Usage: typo_check.sh K25COMM
set -u
bin=$1
fail() { echo "FAIL: $*"; exit 1; }
check() {  # check EXPECTED_LINE ARGS...: stderr is exactly that one line, stdout is empty, exit 2
  local expected=$1
  shift
  local out err rc
  out=$("$bin" "$@" 2>/tmp/typo_check.$$)
  rc=$?
  err=$(cat /tmp/typo_check.$$)
  rm -f /tmp/typo_check.$$
  echo "k25comm $*: exit $rc: $err"
  [ "$rc" = 2 ] || fail "exit $rc, expected 2"
  [ -z "$out" ] || fail "stdout is not empty: $out"
  [ "$err" = "$expected" ] || fail "expected '$expected'"
}
check "k25comm: error: unknown flag --iter; did you mean --iters?" --iter 5
check "k25comm: error: unknown command 'comapre'; did you mean compare?" comapre a b
check "k25comm: error: unknown flag --alow-missing for compare; did you mean --allow-missing?" compare a b --alow-missing
check "k25comm: error: unknown flag --nccl-registr; did you mean --nccl-register?" --nccl-registr=local --dry-run
echo "ok: typos get one line with the nearest flag or command"
