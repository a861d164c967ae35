#!/bin/bash
# tools/flake-hunt on a small ctest project of its own: a steady test, a test that fails on its 4th run, one that
# skips, one that takes more than half its TIMEOUT. Two suites pass; the label repeated 5 times finds the failure on
# the 4th run; the hunt counts runs, failures and skips, names the failed test and the one near its TIMEOUT, and
# exits 1. A label without tests is a failure too. The CPU hog it runs beside (--hog 1) is said and gone after.
# usage: flake_hunt_check.sh CMAKE SOURCE_DIR WORK
set -uo pipefail
cmake=$1 source=$2 work=$3
rm -rf "$work"
mkdir -p "$work/project"
cat >"$work/project/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(hunt NONE)
enable_testing()
add_test(NAME steady COMMAND true)
add_test(NAME fourth_run_fails COMMAND sh -c "n=$(cat runs 2>/dev/null || echo 0); echo $((n + 1)) >runs; [ $n -lt 3 ]")
add_test(NAME skips COMMAND sh -c "exit 77")
set_tests_properties(skips PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME near_limit COMMAND sleep 3.5)
set_tests_properties(near_limit PROPERTIES TIMEOUT 6)
set_tests_properties(steady fourth_run_fails PROPERTIES LABELS x)
CMAKE
"$cmake" -S "$work/project" -B "$work/build" >/dev/null || { echo "FAIL: cmake"; exit 1; }
"$source/tools/flake-hunt" --build "$work/build" --suites 2 --repeat 5 --labels x --hog 1 --logs "$work/logs" \
  >"$work/out.txt"
rc=$?
cat "$work/out.txt"
failures=0
expect() {  # expect REGEX: a line of the hunt's output matches
  grep -qE "$1" "$work/out.txt" || { echo "FAIL: no line matching: $1"; failures=$((failures + 1)); }
}
[ "$rc" -eq 1 ] || { echo "FAIL: exit code $rc, expected 1"; failures=$((failures + 1)); }
expect "^flake-hunt: .* cores, load [0-9. ]+, 1 CPU hog\(s\); 2 suite\(s\) with -j 2, labels x repeated 5 times"
pgrep -f "flake-hunt CPU hog for $work/logs" && { echo "FAIL: the CPU hog outlived the hunt"; failures=$((failures + 1)); }
expect "^suite 1/2: 4 tests, 4 runs, 0 failed, 1 skipped, "
expect "^suite 2/2: 4 tests, 4 runs, 0 failed, 1 skipped, "
expect "^  skipped: skips$"
expect "^  near its TIMEOUT: near_limit: [3-5] s of 6 s$"
# runs 3 and 4 of fourth_run_fails (the 4th fails: until-fail stops), 5 of steady
expect "^label x x5: 2 tests, 7 runs, 1 failed, 0 skipped, .*label-x.log\)$"
expect "^  FAILED: fourth_run_fails: Failed$"
expect "^flake-hunt: 1 failure\(s\) in 3 run\(s\), "
expect "^  label x x5: fourth_run_fails: Failed$"

"$source/tools/flake-hunt" --build "$work/build" --suites 0 --repeat 1 --labels nosuchlabel --logs "$work/logs2" \
  >"$work/out2.txt"
rc=$?
cat "$work/out2.txt"
[ "$rc" -eq 1 ] || { echo "FAIL: a label without tests: exit code $rc, expected 1"; failures=$((failures + 1)); }
grep -qE "^  FAILED: \(ctest\): exit code [0-9]+ with no failed test" "$work/out2.txt" ||
  { echo "FAIL: a label without tests not reported"; failures=$((failures + 1)); }
[ "$failures" -eq 0 ] || exit 1
echo "ok: flake-hunt counted runs, skips and the 4th-run failure, and exited 1"
