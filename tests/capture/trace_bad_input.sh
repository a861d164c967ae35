#!/bin/bash
# A bad profiler-trace input: `k25comm capture INPUT` exits 2 with one line that names the file and says what is
# wrong, and writes nothing (the output folder is not even created).
# usage: trace_bad_input.sh K25COMM INPUT MESSAGE OUT_DIR
set -u
k25comm=$1 input=$2 message=$3 out=$4
rm -rf "$out"
output=$(timeout 100 "$k25comm" capture "$input" --no-plots --out "$out" 2>&1)
rc=$?
echo "$output"
[ "$rc" = 2 ] || { echo "FAIL: exit code $rc, expected 2"; exit 1; }
[ "$(printf '%s\n' "$output" | wc -l)" = 1 ] || { echo "FAIL: more than one line"; exit 1; }
grep -qF -- "$message" <<<"$output" || { echo "FAIL: the line does not say '$message'"; exit 1; }
[ ! -e "$out" ] || { echo "FAIL: $out was written"; exit 1; }
echo "ok: exit 2, one line, nothing written"
