#!/bin/bash
# tools/test's scheduling, with stand-ins for its stages (K25_TEST_STANDINS): each stage starts once the stages it
# waits for have passed, whatever their order of ending; a failed stage leaves the stages after it not run (exit 1);
# a failed build ends the run at once with exit 2, stopping what runs beside it; the table says which stage each
# waited for, and the critical path is the chain behind the stage that ended last. The stand-ins order their own
# ends through files, not sleeps: the sanitized build ends after ctest, the fuzz stage last.
# usage: test_stages_check.sh SOURCE_DIR WORK
set -uo pipefail
source=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work/standins"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# standin NAME [WAIT_FOR...]: a stage that says it ran, waits (bounded) until each WAIT_FOR stage ended (a WAIT_FOR
# with a space is a command: run as is), fails when named in K25_STANDIN_FAIL, and marks its own end in
# $work/ended/NAME.
standin() {
  local name=$1 file=$work/standins/${1// /-}
  shift
  {
    echo '#!/bin/bash'
    echo "source '$here/wait.sh'"
    echo "nice_is() { [ \$(ps -o ni= -p \$\$) -eq \$1 ]; }"
    echo "echo 'stand-in $name ran'"
    for waited in "$@"; do
      if [[ "$waited" == *" "* ]]; then
        echo "$waited"
        continue
      fi
      echo "wait_until 60 '$waited ended' test -e '$work/ended/$waited' || { echo \"\$WAIT_ERROR\"; exit 3; }"
    done
    echo "[ \"\${K25_STANDIN_FAIL:-}\" = '$name' ] && { touch '$work/ended/$name'; exit 1; }"
    echo "touch '$work/ended/$name'"
  } >"$file"
  chmod +x "$file"
}
# The sanitized build runs at nice 5 while the build runs (the build waits for it to see that), at nice 0 once ctest,
# the last foreground stage, has ended (where tools/test may lower a nice level: as root).
standin packages
standin build "wait_until 60 'the sanitized build at nice 5' test -e '$work/ended/niced' || exit 3"
back_to_0="wait_until 60 'nice 0' nice_is 0 && echo 'stand-in sanitized build: nice 0 after ctest' || exit 3"
[ "$(id -u)" -eq 0 ] || back_to_0=":"
standin "sanitized build" "wait_until 60 'nice 5' nice_is 5 || exit 3" "touch '$work/ended/niced'" ctest "$back_to_0"
standin "sanitizer programs"
standin ctest
standin sanitizers
standin soak
standin fuzz sanitizers soak

# run NAME [FAILING_STAGE]: tools/test with the stand-ins; its output in $work/NAME.out, its exit code in RC
run() {
  rm -rf "$work/ended"
  mkdir -p "$work/ended"
  K25_TEST_STANDINS=$work/standins K25_STANDIN_FAIL=${2:-} "$source/tools/test" >"$work/$1.out" 2>&1
  RC=$?
  cat "$work/$1.out"
}
expect() {  # RUN REGEX WHAT
  grep -qE "$2" "$work/$1.out" || fail "$1: $3 (no line matching: $2)"
}
row() {  # RUN STAGE RESULT WAITED_FOR: the stage's row in the table
  expect "$1" "^tools/test: $2 +$3 +[0-9]+ +[0-9]+ +[0-9]+  $4\$" "$2's row: $3, waited for $4"
}

run passing
[ "$RC" -eq 0 ] || fail "passing: exit $RC, expected 0"
row passing packages passed -
row passing build passed packages
row passing "sanitized build" passed packages
row passing ctest passed build
row passing "sanitizer programs" passed "sanitized build"
row passing sanitizers passed "sanitizer programs"
row passing fuzz passed "sanitized build"
row passing soak passed ctest
expect passing "^=== sanitizers: started after sanitizer programs and ctest \([0-9]+ s\), beside" "sanitizers started"
expect passing "^=== sanitized build: started after packages \([0-9]+ s\), beside" "the sanitized build beside the build"
expect passing "^tools/test: critical path: packages \([0-9]+-[0-9]+ s\) -> sanitized build \([0-9]+-[0-9]+ s\) -> fuzz \([0-9]+-[0-9]+ s\); [0-9]+ s of the run's [0-9]+ s$" \
  "the critical path ends in fuzz, which waited for the sanitized build"
expect passing "^tools/test: all checks passed$" "the last line"
[ "$(id -u)" -ne 0 ] || expect passing "^stand-in sanitized build: nice 0 after ctest$" "the sanitized build back at nice 0"

run sanitized-build-fails "sanitized build"
[ "$RC" -eq 1 ] || fail "sanitized-build-fails: exit $RC, expected 1"
row sanitized-build-fails "sanitized build" "FAILED \(1\)" packages
row sanitized-build-fails "sanitizer programs" "NOT RUN" "sanitized build"
row sanitized-build-fails sanitizers "NOT RUN" "sanitizer programs"
row sanitized-build-fails fuzz "NOT RUN" "sanitized build"
row sanitized-build-fails soak passed ctest
expect sanitized-build-fails "^tools/test: FAILED: sanitized build sanitizer programs sanitizers fuzz$" \
  "the failed stages named"

# The build fails while the sanitized build waits for ctest: that one is stopped, ctest never starts.
run build-fails build
[ "$RC" -eq 2 ] || fail "build-fails: exit $RC, expected 2"
row build-fails build "FAILED \(1\)" packages
expect build-fails "^tools/test: FAILED: build \(nothing else can run\)$" "the last line"
grep -q "^=== ctest: started" "$work/build-fails.out" && fail "build-fails: ctest started"
[ -e "$work/ended/sanitized build" ] && fail "build-fails: the sanitized build ran to its end"

[ "$failures" -eq 0 ] || exit 1
echo "ok: tools/test's stages start after what they wait for, failures stop what depends on them"
