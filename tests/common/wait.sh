#!/bin/bash
# Bounded waits and ports for the test scripts and tools (source it): every wait ends by wall time and says how
# long it really waited; every port a server needs up front comes from tests/common/ports.py.
#
#   wait_until [--alive PID]... SECONDS WHAT PROBE [ARGS...]
#       runs PROBE every 0.1 s until it succeeds (return 0) or SECONDS of wall time have passed (return 1); a PID
#       given with --alive that ends stops the wait at once (return 2). An external PROBE (a file, e.g. sinfo or
#       sh -c '...') runs under timeout(1) with the time left, so no single try outlasts the limit; a shell
#       function as PROBE must not block (call its own external commands through timeout). Sets WAITED (seconds
#       waited, e.g. 3.2) and, on failure, WAIT_ERROR ("WHAT: not within 60 s (waited 60.4 s)").
#   port_from_log LOG PID SECONDS   sets SERVER_PORT to the port a server started with --port 0 (pid PID)
#                        printed into LOG ("PORT <n>"), waited for up to SECONDS (fails like wait_until)
#   pick_ports COUNT     the first of COUNT consecutive free ports outside the ephemeral range (ports.py pick)
#   port_listening PORT  whether a TCP socket listens on PORT (this network namespace; reads /proc, never blocks)
#   pid_gone PID         whether process PID has ended

K25_COMMON_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

_k25_now_us() { _K25_NOW=${EPOCHREALTIME//[.,]/}; }

_k25_seconds_to_us() {  # "60" or "0.5" -> microseconds in _K25_US
  local int=${1%%.*} frac=""
  [[ "$1" == *.* ]] && frac=${1#*.}
  frac="${frac}000000"
  _K25_US=$((10#${int:-0} * 1000000 + 10#${frac:0:6}))
}

_k25_format_us() { printf '%d.%d' $(($1 / 1000000)) $(($1 % 1000000 / 100000)); }

wait_until() {
  local alive=() pid
  while [ "${1:-}" = --alive ]; do
    alive+=("$2")
    shift 2
  done
  local limit=$1 what=$2
  shift 2
  local start limit_us left_us waited_us external=0
  [ "$(type -t "$1")" = file ] && external=1
  _k25_seconds_to_us "$limit"
  limit_us=$_K25_US
  _k25_now_us
  start=$_K25_NOW
  WAIT_ERROR=""
  while :; do
    _k25_now_us
    left_us=$((start + limit_us - _K25_NOW))
    if [ "$external" -eq 1 ]; then
      # whole seconds for timeout(1), at least 1: the overshoot is below a second
      timeout -k 1 $(((left_us + 999999) / 1000000 > 0 ? (left_us + 999999) / 1000000 : 1)) "$@" && break
    else
      "$@" && break
    fi
    _k25_now_us
    waited_us=$((_K25_NOW - start))
    WAITED=$(_k25_format_us "$waited_us")
    for pid in "${alive[@]}"; do
      if pid_gone "$pid"; then
        WAIT_ERROR="$what: gave up after $WAITED s, process $pid ended"
        return 2
      fi
    done
    if [ "$waited_us" -ge "$limit_us" ]; then
      WAIT_ERROR="$what: not within $limit s (waited $WAITED s)"
      return 1
    fi
    sleep 0.1
  done
  _k25_now_us
  WAITED=$(_k25_format_us $((_K25_NOW - start)))
  return 0
}

port_from_log() {
  SERVER_PORT=""
  wait_until --alive "$2" "$3" "the 'PORT <n>' line of pid $2 in $1" grep -q '^PORT ' "$1" || return
  SERVER_PORT=$(awk '/^PORT / { print $2; exit }' "$1")
}

pick_ports() { python3 "$K25_COMMON_DIR/ports.py" pick --count "${1:-1}"; }

port_listening() {
  local hex
  hex=$(printf '%04X' "$1")
  # local_address is field 2 ("0100007F:1A0B"), state field 4 (0A: LISTEN)
  awk -v port=":$hex" 'substr($2, length($2) - 4) == port && $4 == "0A" { found = 1 } END { exit !found }' \
    /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

pid_gone() { ! kill -0 "$1" 2>/dev/null; }
