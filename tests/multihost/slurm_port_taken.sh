#!/bin/bash
# Requirement (issue 22, part 1): the Slurm fixture's first port is taken the way that stopped a CI run (a port
# in the ephemeral range held as the local end of another connection: nothing answers a connect there, and
# slurmctld still cannot bind it). The fixture says so, retries with other ports, outside the ephemeral range,
# and the cluster comes up; then it is torn down without leftovers.
# usage: slurm_port_taken.sh
set -uo pipefail
K25_SOURCE=$(cd "$(dirname "$0")/../.." && pwd)
source "$K25_SOURCE/tests/multihost/lib.sh"

# A connection held open by a helper process: its client end's port is the one to take.
held=$(mktemp /tmp/k25-held-port.XXXXXX)
python3 - "$held" <<'PY' &
import socket, sys, time
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(1)
client = socket.create_connection(server.getsockname())
peer, _ = server.accept()
with open(sys.argv[1], "w") as f:
    f.write(f"{client.getsockname()[1]}\n")
time.sleep(300)
PY
holder=$!
FIXTURE_DOWN+=("kill $holder 2>/dev/null; rm -f '$held'")
wait_until --alive "$holder" 30 "the held connection's port" test -s "$held" || fail "$WAIT_ERROR"
taken=$(cat "$held")
(exec 3<>"/dev/tcp/127.0.0.1/$taken") 2>/dev/null && fail "port $taken answers a connect"
echo "port $taken: the local end of a held connection; a connect to it is refused"

SLURM_DIR=$(mktemp -d /tmp/k25-slurm.XXXXXX)
FIXTURE_DOWN+=("'$K25_SOURCE/tests/multihost/slurm_cluster.sh' down '$SLURM_DIR'")
said=$(K25_SLURM_FIRST_PORT=$taken "$K25_SOURCE/tests/multihost/slurm_cluster.sh" up "$SLURM_DIR" 2>&1)
rc=$?
echo "$said"
[ "$rc" -eq 0 ] || fail "slurm_cluster.sh up exited $rc with port $taken taken"
grep -qF "port $taken or $((taken + 1)) was taken when the daemons bound it (attempt 1 of 5); retrying with other ports" \
  <<<"$said" || fail "the fixture did not say that it retried"
source "$SLURM_DIR/env"
port=$(awk -F= '$1 == "SlurmctldPort" { print $2 }' "$SLURM_CONF")
read -r low high </proc/sys/net/ipv4/ip_local_port_range
echo "the cluster came up on ports $port and $((port + 1)) (ephemeral range $low-$high)"
[ "$port" != "$taken" ] || fail "the cluster kept the taken port $taken"
[ "$port" -lt "$low" ] || [ "$port" -gt "$high" ] || fail "port $port lies in the ephemeral range $low-$high"
state=$(timeout -k 1 10 sinfo -h -N -n k25node -o %t)
[ "$state" = idle ] || fail "node state '$state', expected idle"
"$K25_SOURCE/tests/multihost/slurm_cluster.sh" down "$SLURM_DIR" || fail "slurm_cluster.sh down failed"
[ ! -e "$SLURM_DIR" ] || fail "$SLURM_DIR left behind"
echo "ok: a taken first port was retried with ports $port and $((port + 1)), said on stderr"
