#!/bin/bash
# tools/check-test-names on a small tree: one safe name, one with an unclosed '[', one starting with '-', one with a
# ';'.
# Usage: check_test_names_selftest.sh PYTHON CHECKER WORK_DIR
set -u
python=$1 checker=$2 tree=$3
rm -rf "$tree" && mkdir -p "$tree" || exit 1
cat >"$tree/test_names.cpp" <<'CPP'
TEST_CASE("plan: ops in [layer] order", "[plan]") {}
TEST_CASE("gaps: within [0, skew_us)", "[plan]") {}
TEST_CASE("--flag: read", "[cli]") {}
TEST_CASE("sse: data is joined; the event type is kept", "[sse]") {}
CPP
out=$("$python" "$checker" "$tree")
rc=$?
echo "$out"
[ "$rc" -eq 1 ] || { echo "FAIL: exit $rc, expected 1"; exit 1; }
grep -q "test_names.cpp:2: .*without its ']'" <<<"$out" || { echo "FAIL: the unclosed '[' not named"; exit 1; }
grep -q "test_names.cpp:3: .*starts with '-'" <<<"$out" || { echo "FAIL: the leading '-' not named"; exit 1; }
grep -q "test_names.cpp:4: .*has a ';'" <<<"$out" || { echo "FAIL: the ';' not named"; exit 1; }
[ "$(grep -c . <<<"$out")" -eq 3 ] || { echo "FAIL: the safe name was reported"; exit 1; }
echo "PASS"
