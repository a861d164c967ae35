#!/bin/bash
# tools/test's scheduling, with stand-ins for its stages (K25_TEST_STANDINS): each stage starts once the stages it
# waits for have passed, whatever their order of ending; a failed stage leaves the stages after it not run (exit 1);
# a failed build ends the run at once with exit 2, stopping what runs beside it; the table says which stage each
# waited for, and the critical path is the chain behind the stage that ended last. The stand-ins order their own
# ends through files, not sleeps: the sanitized build ends after ctest, the fuzz stage last. The levels: the
# foreground at the caller's nice, the stages beside 5 below, a raise only through K25_TEST_NICE, said in the first
# line. Every process of a run ends with it, however it ends: its own end, SIGTERM, SIGHUP, SIGKILL to it or to its
# process group, with K25_TEST_NICE's session of its own too; the stage that holds is one that left the run's
# process group and ignores SIGTERM.
# usage: test_stages_check.sh SOURCE_DIR WORK
set -uo pipefail
source=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=wait.sh
source "$here/wait.sh"
# shellcheck source=processes.sh
source "$here/processes.sh"
rm -rf "$work"
mkdir -p "$work/standins"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# standin NAME [WAIT_FOR...]: a stage that says it ran, waits (bounded) until each WAIT_FOR stage ended (a WAIT_FOR
# with a space is a command: run as is), then holds when named in K25_STANDIN_HOLD (its pid in $work/held: in a
# session of its own, SIGTERM ignored), leaves a process behind in a session of its own when named in
# K25_STANDIN_ORPHAN, fails when named in K25_STANDIN_FAIL, and marks its own end in $work/ended/NAME.
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
    echo "[ \"\${K25_STANDIN_HOLD:-}\" = '$name' ] && { echo \$\$ >'$work/held'; exec setsid env --ignore-signal=TERM sleep 120; }"
    echo "[ \"\${K25_STANDIN_ORPHAN:-}\" = '$name' ] && { setsid sleep 120 </dev/null >/dev/null 2>&1 & echo \$! >'$work/orphan'; }"
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
  K25_STAGES_CHECK=$1 K25_TEST_STANDINS=$work/standins K25_STANDIN_FAIL=${2:-} "$source/tools/test" \
    >"$work/$1.out" 2>&1
  RC=$?
  cat "$work/$1.out"
}
# none_left RUN: no process of run RUN is left (the stages, what they started, the guard), waited for.
run_gone() { [ -z "$(pids_with_env "K25_STAGES_CHECK=$1")" ]; }
none_left() {
  wait_until 60 "every process of run $1 ended" run_gone "$1" ||
    fail "$1: $WAIT_ERROR; left: $(for pid in $(pids_with_env "K25_STAGES_CHECK=$1"); do cmdline_of "$pid"; echo; done)"
}
expect() {  # RUN REGEX WHAT
  grep -qE "$2" "$work/$1.out" || fail "$1: $3 (no line matching: $2)"
}
row() {  # RUN STAGE RESULT WAITED_FOR: the stage's row in the table
  expect "$1" "^tools/test: $2 +$3 +[0-9]+ +[0-9]+ +[0-9]+  $4\$" "$2's row: $3, waited for $4"
}

K25_STANDIN_ORPHAN=soak run passing
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
# The soak stand-in left a process in a session of its own behind: it ends with the run.
none_left passing
# The foreground at the caller's nice level, the stages beside 5 below: tools/test never raises its own priority;
# the first line says so.
caller_nice=$(nice)
levels="tools/test: the foreground stages run at nice $caller_nice \(the caller's\), the stages beside them at nice $((caller_nice + 5))"
head -n 1 "$work/passing.out" | grep -qE "^$levels\$" || fail "passing: the first line is not: $levels"
expect passing "^stand-in build: nice $caller_nice$" "the build at the caller's nice"
expect passing "^stand-in sanitized build: nice $((caller_nice + 5))$" "the sanitized build 5 below it"

# K25_TEST_NICE sets the foreground's level (a higher one needs no root); one that is no level: exit 2, nothing run.
given=$((caller_nice + 3))
[ "$given" -le 14 ] || given=14
K25_TEST_NICE=$given run nice-given
[ "$RC" -eq 0 ] || fail "nice-given: exit $RC, expected 0"
expect nice-given "^stand-in build: nice $given$" "the build at K25_TEST_NICE"
expect nice-given "^stand-in sanitized build: nice $((given + 5))$" "the sanitized build 5 above it"
head -n 1 "$work/nice-given.out" | grep -qE "^tools/test: the foreground stages run at nice $given \(lowered by K25_TEST_NICE from the caller's $caller_nice\)," ||
  fail "nice-given: the first line does not say the level lowered"
K25_TEST_NICE=low run nice-wrong
[ "$RC" -eq 2 ] || fail "nice-wrong: exit $RC, expected 2"
expect nice-wrong "^tools/test: K25_TEST_NICE=low: give a nice level from -20 to 14" "the message"
grep -q "stand-in" "$work/nice-wrong.out" && fail "nice-wrong: a stage ran"

# A raise only where K25_TEST_NICE asks for it, and said; without CAP_SYS_NICE (another user, a container) said too.
raised=$((caller_nice - 5))
[ "$raised" -ge -20 ] || raised=-20
autogroups=0
[ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" = 1 ] && autogroups=1
K25_TEST_NICE=$raised run nice-raised
[ "$RC" -eq 0 ] || fail "nice-raised: exit $RC, expected 0"
if [ "$may_lower" = 1 ]; then
  head -n 1 "$work/nice-raised.out" |
    grep -qE "^tools/test: the foreground stages run at nice $raised \(raised by K25_TEST_NICE from the caller's $caller_nice\), the stages beside them at nice $((raised + 5))" ||
    fail "nice-raised: the first line does not say the raise"
  expect nice-raised "^stand-in build: nice $raised$" "the build at K25_TEST_NICE"
else
  head -n 1 "$work/nice-raised.out" |
    grep -qE "^tools/test: the foreground stages run at nice $caller_nice \(the caller's: K25_TEST_NICE=$raised is a raise, which needs CAP_SYS_NICE\)" ||
    fail "nice-raised: the first line does not say why the level stays"
  expect nice-raised "^stand-in build: nice $caller_nice$" "the build at the caller's nice"
fi

# Sessions (setsid: a new session, its autogroup at nice 0): by default tools/test stays in its caller's; with
# K25_TEST_NICE below the session's autogroup (where it may raise, and the kernel groups by session) it runs in a
# session of its own whose autogroup has that level.
if [ "$may_lower" = 1 ] && [ "$autogroups" = 1 ]; then
  for way in default raised; do
    rm -rf "$work/ended" && mkdir -p "$work/ended"
    nice_asked=""
    [ "$way" = raised ] && nice_asked=$raised
    K25_TEST_NICE=$nice_asked K25_TEST_STANDINS=$work/standins setsid -w "$source/tools/test" \
      >"$work/session-$way.out" 2>&1 &
    caller=$!  # not a process group leader: setsid does not fork, and the new session's id is this pid
    wait "$caller"
    RC=$?
    cat "$work/session-$way.out"
    [ "$RC" -eq 0 ] || fail "session-$way: exit $RC, expected 0"
    if [ "$way" = default ]; then
      expect session-default "^stand-in build: session $caller, /autogroup-[0-9]+ nice 0$" "the caller's session kept"
      grep -q "in a session of its own" "$work/session-default.out" && fail "session-default: a session of its own"
    else
      head -n 1 "$work/session-raised.out" | grep -qE "; in a session of its own, its autogroup at nice $raised$" ||
        fail "session-raised: the first line does not say the session"
      expect session-raised "^stand-in build: session [0-9]+, /autogroup-[0-9]+ nice $raised$" "the stage's autogroup"
      grep -q "^stand-in build: session $caller," "$work/session-raised.out" &&
        fail "session-raised: in the caller's session"
    fi
  done
fi

# However the run ends, every stage ends with it: tools/test in a process group of its own (setsid -w), a stage
# holding in a session of its own and ignoring SIGTERM, the sanitized build's stand-in waiting beside it, then
# SIGTERM, SIGHUP (a closed terminal) or SIGKILL to tools/test, or SIGKILL to its whole process group; and where
# K25_TEST_NICE runs it in a session of its own, SIGKILL to the first process (or its group), which the session's
# tree does not share.
signal_ways="TERM:pid HUP:pid KILL:pid KILL:group"
[ "$may_lower" = 1 ] && [ "$autogroups" = 1 ] && signal_ways="$signal_ways KILL:pid:raised KILL:group:raised"
for way in $signal_ways; do
  IFS=: read -r signal target asked <<<"$way"
  name=signal-$signal-$target${asked:+-$asked}
  rm -rf "$work/ended" "$work/held" && mkdir -p "$work/ended"
  nice_asked=""
  [ "$asked" = raised ] && nice_asked=$raised
  K25_STAGES_CHECK=$name K25_TEST_NICE=$nice_asked K25_TEST_STANDINS=$work/standins K25_STANDIN_HOLD=build \
    setsid -w "$source/tools/test" >"$work/$name.out" 2>&1 &
  caller=$!
  wait_until 60 "the build stand-in holding" test -s "$work/held" || fail "$name: $WAIT_ERROR"
  wait_until 60 "the sanitized build beside it" test -e "$work/ended/niced" || fail "$name: $WAIT_ERROR"
  if [ "$target" = group ]; then kill "-$signal" -- "-$caller"; else kill "-$signal" "$caller"; fi
  wait "$caller"
  RC=$?
  cat "$work/$name.out"
  case $signal in
    TERM) [ "$RC" -eq 130 ] || fail "$name: exit $RC, expected 130" ;;
    HUP) [ "$RC" -eq 129 ] || fail "$name: exit $RC, expected 129" ;;
  esac
  none_left "$name"
done

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
