#!/bin/bash
# The kernel-class table is looked up as the configs are: a k25comm outside the source tree (no share/k25comm
# beside it) captures from the source folder, finding data/kernel-classes.yaml in the working directory, and
# elsewhere exits 2 saying where it looked.
# usage: class_table_lookup.sh K25COMM SOURCE_DIR TRACE_DIR OUT_DIR
set -u
k25comm=$1 src=$2 traces=$3 out=$4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out"
mkdir -p "$out/bin"
cp "$k25comm" "$out/bin/k25comm"
(cd "$src" && "$out/bin/k25comm" capture "$traces" --no-plots --out "$out/found") >"$out/found.log" 2>&1 ||
  { cat "$out/found.log"; fail "no capture with data/ in the working directory"; }
grep -qF "trace: decode step at batch 1" "$out/found.log" || { cat "$out/found.log"; fail "no headline"; }
(cd "$out" && bin/k25comm capture "$traces" --no-plots --out "$out/none") >"$out/none.log" 2>&1
rc=$?
cat "$out/none.log"
[ "$rc" = 2 ] || fail "exit code $rc without a table, expected 2"
grep -qF "the kernel-class table data/kernel-classes.yaml was not found (in the working directory, beside k25comm or under its install prefix)" \
  "$out/none.log" || fail "the message does not say where the table was looked for"
echo "ok: found in the working directory, refused where it is nowhere"
