# shellcheck shell=bash
# Time limits for the GPU scripts (tools/gpu-checks, tests/gpu/*.sh, tools/bench-nccl, tools/bench-decode):
# source it, then run every command that could hang through `limited`.
#   K25_DEADLINE   epoch second by which everything started here must be over (set by the caller that owns the
#                  outer limit; unset: no outer limit). A limit asked for is cut to end K25_LIMIT_MARGIN_S (5 s)
#                  before it, so that an inner limit always fires strictly before the outer one.
#   K25_RUN_TOKEN  marks every process started through `limited` (in its environment), so that sweep_token can
#                  find and end whatever outlived its command, in whatever session or process group it went.
# A command runs in a session of its own (setsid); on expiry the whole session gets SIGTERM, then SIGKILL where it
# has not ended within 5 s of wall time (said on stderr). Nothing here kills by name. Safe to source in a script
# with `set -e`.

K25_LIMIT_MARGIN_S=${K25_LIMIT_MARGIN_S:-5}
# shellcheck source=../../tests/common/wait.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../tests/common/wait.sh"
# shellcheck source=../../tests/common/processes.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../tests/common/processes.sh"

# Seconds left before K25_DEADLINE minus the margin (a large number without a deadline; never below 1).
seconds_left() {
  if [ -z "${K25_DEADLINE:-}" ]; then echo 100000; return; fi
  local left=$((K25_DEADLINE - EPOCHSECONDS - K25_LIMIT_MARGIN_S))
  [ "$left" -lt 1 ] && left=1
  echo "$left"
}

# The limit a command gets: SECONDS, or less where the outer deadline comes first.
bounded_limit() {
  local asked=$1 left
  left=$(seconds_left)
  [ "$left" -lt "$asked" ] && asked=$left
  echo "$asked"
}

# Every process of session SID gets SIGNAL.
signal_session() {  # SID SIGNAL
  local pid sid
  while read -r pid sid; do
    if [ "$sid" = "$1" ]; then kill "-$2" "$pid" 2>/dev/null || true; fi
  done < <(ps -eo pid=,sid=)
  return 0
}

session_alive() {  # SID
  ps -eo sid= | grep -qx " *$1"
}
session_ended() { ! session_alive "$1"; }

# limited SECONDS COMMAND...: runs COMMAND (stdin from /dev/null) in a session of its own for at most
# bounded_limit(SECONDS) seconds. Returns its exit status, or 124 when it ran out of time (its whole session
# ended). Processes of its session still running after it exits are ended too (and named on stderr): a rank or
# an mpirun left behind would hold the GPU during the next check. A SIGTERM, SIGINT or SIGHUP to the shell waiting
# here ends the command's session the same way, then reaches the shell as it would have (its own trap, or its end).
limited() {
  local asked=$1
  shift
  local limit sid_file sid pid status=0 started stop="" previous_traps
  previous_traps=$(trap -p TERM INT HUP)
  trap 'stop=TERM' TERM
  trap 'stop=INT' INT
  trap 'stop=HUP' HUP
  limit=$(bounded_limit "$asked")
  sid_file=$(mktemp /tmp/k25-sid.XXXXXX)
  started=$EPOCHSECONDS
  K25_RUN_TOKEN=${K25_RUN_TOKEN:-k25-$$} setsid sh -c 'echo $$ >"$0"; exec "$@"' "$sid_file" "$@" </dev/null &
  pid=$!
  while [ ! -s "$sid_file" ] && kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  sid=$(cat "$sid_file" 2>/dev/null || true)
  rm -f "$sid_file"
  while kill -0 "$pid" 2>/dev/null && [ $((EPOCHSECONDS - started)) -lt "$limit" ] && [ -z "$stop" ]; do
    sleep 0.2
  done
  if kill -0 "$pid" 2>/dev/null; then
    if [ -n "$stop" ]; then
      echo "time limit: '$*' stopped by SIG$stop: ending its session" >&2
    else
      echo "time limit: '$*' still running after $limit s: ending its session" >&2
    fi
    if [ -n "$sid" ]; then
      signal_session "$sid" TERM
      wait_until 5 "session $sid ending on SIGTERM" session_ended "$sid" || echo "time limit: $WAIT_ERROR: SIGKILL" >&2
      signal_session "$sid" KILL
    fi
    wait "$pid" 2>/dev/null || true
    status=124
  else
    wait "$pid" || status=$?
    if [ -n "$sid" ] && session_alive "$sid"; then
      echo "time limit: '$*' left processes running in its session: ending them" >&2
      signal_session "$sid" KILL
    fi
  fi
  trap - TERM INT HUP
  eval "$previous_traps"
  [ -n "$stop" ] && kill -s "$stop" "$BASHPID"
  return "$status"
}

# sweep_token TOKEN: ends every process whose environment holds K25_RUN_TOKEN=TOKEN (what outlived its session:
# a rank that made a session of its own) and prints how many there were.
sweep_token() {
  local token=$1 found=0 pid
  for pid in $(pids_with_env "K25_RUN_TOKEN=$token"); do
    [ "$pid" = "$$" ] && continue
    if kill -KILL "$pid" 2>/dev/null; then found=$((found + 1)); fi
  done
  echo "$found"
}
