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
# shellcheck source=wait.sh
source "$here/wait.sh"
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
    echo "[ \"\${K25_STANDIN_HOLD:-}\" = '$name' ] && { echo \$\$ >'$work/held'; exec sleep 120; }"
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
# The sanitized build runs 5 nice levels below the build while the build runs (the build says its level and waits for
# the sanitized build to see that), at the build's level once ctest, the last foreground stage, has ended (where
# tools/test may lower a nice level: as root).
standin packages
standin build "echo \"stand-in build: nice \$(nice)\"; nice >'$work/ended/build-nice'" \
  "echo \"stand-in build: session \$(ps -o sid= -p \$\$ | tr -d ' '), \$(cat /proc/self/autogroup 2>/dev/null)\"" \
  "wait_until 60 'the sanitized build 5 below' test -e '$work/ended/niced' || exit 3"
below="wait_until 60 'the build says its nice' test -s '$work/ended/build-nice' || exit 3
fg=\$(cat '$work/ended/build-nice')
wait_until 60 'nice 5 below the build' nice_is \$((fg + 5)) || exit 3
echo \"stand-in sanitized build: nice \$(nice)\""
back="wait_until 60 'the level of the build' nice_is \$fg || exit 3
echo 'stand-in sanitized build: at the level of the build after ctest'"
# Whether this process may lower a nice level (root, or root without CAP_SYS_NICE in a container: it may not).
may_lower=0
(renice -n "$(($(nice) - 1))" -p "$BASHPID") >/dev/null 2>&1 && may_lower=1
[ "$may_lower" = 1 ] || back=": where no nice level may be lowered the stages beside stay 5 below"  # holds a space
standin "sanitized build" "$below" "touch '$work/ended/niced'" ctest "$back"
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
[ "$may_lower" = 0 ] || expect passing "^stand-in sanitized build: at the level of the build after ctest$" \
  "the sanitized build back at the level of the build"
# As root started at nice 0: the foreground at nice -5, the stages beside at 0, never below the machine's other load.
if [ "$(id -u)" -eq 0 ] && [ "$(nice)" -eq 0 ] && [ "$may_lower" = 1 ]; then
  expect passing "^tools/test: the foreground stages run at nice -5, the stages beside them at nice 0$" \
    "the levels said"
  expect passing "^stand-in build: nice -5$" "the build at nice -5"
  expect passing "^stand-in sanitized build: nice 0$" "the sanitized build at nice 0 beside it"
elif [ "$(id -u)" -eq 0 ] && [ "$(nice)" -eq 0 ]; then  # root without CAP_SYS_NICE: said, and as another user
  why="^tools/test: cannot run at nice -5 \(a lower level needs CAP_SYS_NICE\): the stages run at nice 0, beside at 5$"
  expect passing "$why" "why the levels stay"
  expect passing "^stand-in sanitized build: nice 5$" "the sanitized build at nice 5 beside the build"
fi

# K25_TEST_NICE sets the foreground's level (a higher one needs no root); one that is no level: exit 2, nothing run.
given=$(($(nice) + 3))
[ "$given" -le 14 ] || given=14
K25_TEST_NICE=$given run nice-given
[ "$RC" -eq 0 ] || fail "nice-given: exit $RC, expected 0"
expect nice-given "^stand-in build: nice $given$" "the build at K25_TEST_NICE"
expect nice-given "^stand-in sanitized build: nice $((given + 5))$" "the sanitized build 5 above it"
K25_TEST_NICE=low run nice-wrong
[ "$RC" -eq 2 ] || fail "nice-wrong: exit $RC, expected 2"
expect nice-wrong "^tools/test: K25_TEST_NICE=low: give a nice level from -20 to 14" "the message"
grep -q "stand-in" "$work/nice-wrong.out" && fail "nice-wrong: a stage ran"

# In a session whose autogroup is above the foreground's level (setsid: a new session, its autogroup at nice 0),
# tools/test runs in a session of its own whose autogroup has the foreground's level (where it may lower levels and
# the kernel groups by session); elsewhere in the caller's. A SIGTERM to it reaches its stages.
if [ "$may_lower" = 1 ] && [ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" = 1 ]; then
  rm -rf "$work/ended" && mkdir -p "$work/ended"
  K25_TEST_STANDINS=$work/standins setsid -w "$source/tools/test" >"$work/own-session.out" 2>&1 &
  caller=$!  # not a process group leader: setsid does not fork, and the new session's id is this pid
  wait "$caller"
  RC=$?
  cat "$work/own-session.out"
  [ "$RC" -eq 0 ] || fail "own-session: exit $RC, expected 0"
  level=$(sed -n 's/^tools\/test: the foreground stages run at nice \(-\?[0-9]*\),.*/\1/p' "$work/own-session.out")
  if [ -n "$level" ] && [ "$level" -lt 0 ]; then
    expect own-session "^tools/test: in a session of its own, its autogroup at nice $level$" "the session said"
    expect own-session "^stand-in build: session [0-9]+, /autogroup-[0-9]+ nice $level$" "the stage's autogroup"
    grep -q "^stand-in build: session $caller," "$work/own-session.out" && fail "own-session: in the caller's session"
  else
    expect own-session "^stand-in build: session $caller, /autogroup-[0-9]+ nice 0$" "the caller's session kept"
  fi
  rm -rf "$work/ended" "$work/held" && mkdir -p "$work/ended"
  K25_TEST_STANDINS=$work/standins K25_STANDIN_HOLD=ctest setsid -w "$source/tools/test" >"$work/term.out" 2>&1 &
  caller=$!
  wait_until 60 "the ctest stand-in holding" test -s "$work/held" || fail "term: $WAIT_ERROR"
  held=$(cat "$work/held" 2>/dev/null)
  kill -TERM "$caller"
  wait "$caller"
  RC=$?
  cat "$work/term.out"
  [ "$RC" -eq 130 ] || fail "term: exit $RC, expected 130"
  [ -z "$held" ] || wait_until 10 "the held stand-in ending" pid_gone "$held" || fail "term: $WAIT_ERROR"
fi

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
