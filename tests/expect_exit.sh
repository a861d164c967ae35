#!/bin/bash
# Runs a command, expects the given exit code and a text in its stderr/stdout; prints what it saw otherwise.
# usage: expect_exit.sh CODE TEXT COMMAND [ARGS...]
# With K25_EXPECT_ABSENT=TEXT2 in the environment, the output must not contain TEXT2 either.
set -u
want=$1 text=$2
shift 2
output=$(timeout 100 "$@" 2>&1)
got=$?
echo "$output"
if [ "$got" != "$want" ]; then echo "FAIL: exit code $got, expected $want"; exit 1; fi
if ! grep -qF -- "$text" <<<"$output"; then echo "FAIL: output does not mention '$text'"; exit 1; fi
if [ -n "${K25_EXPECT_ABSENT:-}" ] && grep -qF -- "$K25_EXPECT_ABSENT" <<<"$output"; then
  echo "FAIL: output mentions '$K25_EXPECT_ABSENT'"; exit 1
fi
if grep -qE "Segmentation|Aborted|terminate called|core dumped" <<<"$output"; then echo "FAIL: crashed"; exit 1; fi
echo "ok: exit $got and '$text' in the output"
