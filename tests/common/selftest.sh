#!/bin/bash
# The shared port and wait helpers (tests/common): a wait ends by wall time even when its probe blocks, says the
# time it really waited, ends early when the process it waits for ends; picked ports lie outside the ephemeral
# range and are free; a server's "PORT <n>" line is read within a bound; a refused port refuses; time_limits.sh's
# limited kills what ignores SIGTERM after a wait by wall time.
# usage: selftest.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/wait.sh"
failures=0
check() {  # check DESCRIPTION COMMAND...: runs COMMAND, counts a failure
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi
}
elapsed_below() { [ $(((${EPOCHREALTIME//[.,]/} - $1) / 1000)) -lt "$2" ]; }  # elapsed_below START_US MS

# A probe that blocks (sleep 30) under a 2 s limit: back after its 2 s, long before the probe's 30 s. (Each bound
# below is half of what the other outcome would take, not a timing: a starved CPU may add seconds, never 15.)
start=${EPOCHREALTIME//[.,]/}
wait_until 2 "a blocking probe" sleep 30
rc=$?
check "a blocking probe is cut at the limit" elapsed_below "$start" 15000
check "the limit's failure returns 1 ($rc)" test "$rc" -eq 1
check "the message says the time waited: $WAIT_ERROR" \
  grep -qE '^a blocking probe: not within 2 s \(waited ([2-9]|1[0-4])\.[0-9] s\)$' <<<"$WAIT_ERROR"

# A shell function as probe, true on its third call.
calls=0
third_call() { calls=$((calls + 1)); [ "$calls" -ge 3 ]; }
wait_until 30 "the third call" third_call
check "a function probe is called until it holds ($calls calls, $WAITED s)" test "$calls" -eq 3

# --alive: the process waited for ends, the wait ends with it.
sleep 0.3 &
pid=$!
start=${EPOCHREALTIME//[.,]/}
wait_until --alive "$pid" 30 "a result" false
rc=$?
check "a wait ends when its --alive process ends ($rc: $WAIT_ERROR)" test "$rc" -eq 2
check "... at once" elapsed_below "$start" 15000
check "... and says so" grep -qE "^a result: gave up after [0-9.]+ s, process $pid ended$" <<<"$WAIT_ERROR"

# Picked ports: outside the ephemeral range, free now (they bind), not listening.
read -r low high </proc/sys/net/ipv4/ip_local_port_range
port=$(pick_ports 2)
check "pick_ports 2 gives $port, outside $low-$high" test "$((port + 1))" -lt "$low" -o "$port" -gt "$high"
check "both bind" python3 -c "import socket, sys
for p in (int(sys.argv[1]), int(sys.argv[1]) + 1):
    socket.socket().bind(('0.0.0.0', p))" "$port"
check "neither listens" bash -c "! { . '$here/wait.sh'; port_listening $port || port_listening $((port + 1)); }"

# A server on port 0 (the fake OpenAI server): its port read from its log, then it listens there.
log=$(mktemp)
python3 "$here/../serve/fake_openai_server.py" --port 0 --max-seconds 60 >"$log" 2>&1 &
server=$!
port_from_log "$log" "$server" 30
check "port_from_log reads the server's port ($SERVER_PORT; $WAITED s)" test -n "$SERVER_PORT"
check "port_listening sees it" port_listening "$SERVER_PORT"
kill "$server"
wait "$server" 2>/dev/null
: >"$log"
start=${EPOCHREALTIME//[.,]/}
port_from_log "$log" "$server" 30
rc=$?
check "port_from_log fails for a server that ended silent ($rc: $WAIT_ERROR)" test "$rc" -eq 2 -a -z "$SERVER_PORT"
check "... at once" elapsed_below "$start" 15000
rm -f "$log"

# The Python side: read_port_line bounded, refused_port refuses, wait_for says the time waited.
check "ports.py: read_port_line, refused_port, wait_for" python3 - "$here" <<'PY'
import errno, socket, subprocess, sys, time
sys.path.insert(0, sys.argv[1])
from ports import read_port_line, refused_port, wait_for, pick_ports, ephemeral_range
silent = subprocess.Popen(["sleep", "30"], stdout=subprocess.PIPE, text=True)
start = time.monotonic()
try:
    read_port_line(silent, 1, "sleep")
    raise SystemExit("read_port_line returned for a process that printed nothing")
except TimeoutError as error:
    assert time.monotonic() - start < 15, "read_port_line outlasted its bound"
    assert "within 1 s (waited " in str(error), error
finally:
    silent.kill()
    silent.wait()
with refused_port() as port:
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) == errno.ECONNREFUSED, "refused_port accepted a connection"
try:
    wait_for(lambda: False, 0.3, "never")
    raise SystemExit("wait_for returned")
except TimeoutError as error:
    assert str(error).startswith("never: not within 0.3 s (waited "), error
low, high = ephemeral_range()
assert not low <= pick_ports(3) <= high
PY

# tools/bench/time_limits.sh's limited: a command that ignores SIGTERM past its limit gets SIGKILL after a 5 s
# wait by wall time, which the message states; nothing of its session is left. The command ignores SIGTERM from its
# first instruction: env sets the disposition before bash starts, and an ignored signal stays ignored through fork
# and exec (bash cannot trap a signal ignored at its entry, so limited's own trap leaves it so). A command that
# installed its handler itself (python's signal.signal) lost the race under load: python3 through a pyenv shim
# took 2.7 s to start at load 8, and limited's SIGTERM at 1 s ended it before the handler was there.
marker=k25-limited-selftest-$$
start=${EPOCHREALTIME//[.,]/}
message=$(env --ignore-signal=TERM bash -c "source '$here/../../tools/bench/time_limits.sh'
  limited 1 python3 -c 'import time; time.sleep(60)' $marker" 2>&1)
rc=$?
check "limited: a command that ignores SIGTERM ends with 124 ($rc)" test "$rc" -eq 124
check "... long before the command's own 60 s" elapsed_below "$start" 30000
waited_5_or_more='([5-9]|[1-9][0-9]+)\.[0-9] s'
sigkill_line="^time limit: session [0-9]+ ending on SIGTERM: not within 5 s \\(waited $waited_5_or_more\\): SIGKILL\$"
check "... says the wait it gave SIGTERM: $(tail -1 <<<"$message")" grep -qE "$sigkill_line" <<<"$message"
marker_gone() { ! pgrep -f "$marker" >/dev/null; }
check "... and leaves nothing running" marker_gone

[ "$failures" -eq 0 ] || { echo "FAIL: $failures check(s)"; exit 1; }
echo "ok: tests/common's waits and ports"
