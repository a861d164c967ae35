# Helpers of the multi-host and Slurm tests: fixtures that are always torn down (trap on EXIT, INT and TERM),
# journal counting, link counters; bounded waits (tests/common/wait.sh). Source it after setting K25_SOURCE (the
# repository root).

if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP: needs root (network namespaces, Slurm and MUNGE daemons)"
  exit 77
fi

source "$K25_SOURCE/tests/common/wait.sh"
source "$K25_SOURCE/tests/common/journal.sh"
source "$K25_SOURCE/tests/common/processes.sh"

FIXTURE_DOWN=()  # commands that tear the fixtures down, run in reverse order on exit

tear_down_fixtures() {
  local i
  for ((i = ${#FIXTURE_DOWN[@]} - 1; i >= 0; i--)); do eval "${FIXTURE_DOWN[$i]}" || true; done
  FIXTURE_DOWN=()
}
trap tear_down_fixtures EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

fail() {
  echo "FAIL: $*"
  exit 1
}

# emulated_hosts_up N: N emulated hosts in a new folder EH (torn down on exit); HOST[1..N] hold their names.
emulated_hosts_up() {
  EH=$(mktemp -d /tmp/k25-hosts.XXXXXX)
  FIXTURE_DOWN+=("'$K25_SOURCE/tools/emulated-hosts' down '$EH'")
  "$K25_SOURCE/tools/emulated-hosts" up "$EH" "$1" || fail "could not set up $1 emulated hosts"
  HOST=("")
  local name
  while read -r name _; do HOST+=("$name"); done <"$EH/hosts"
  # More ranks than cores here: ranks must yield the CPU while they wait (mpirun cannot see the oversubscription
  # across emulated hosts).
  export OMPI_MCA_mpi_yield_when_idle=1
}

# slurm_up: a one-node Slurm cluster in a new folder SLURM_DIR (torn down on exit); sources its env.
slurm_up() {
  SLURM_DIR=$(mktemp -d /tmp/k25-slurm.XXXXXX)
  FIXTURE_DOWN+=("'$K25_SOURCE/tests/multihost/slurm_cluster.sh' down '$SLURM_DIR'")
  "$K25_SOURCE/tests/multihost/slurm_cluster.sh" up "$SLURM_DIR" || fail "could not start the Slurm cluster"
  # shellcheck disable=SC1091
  source "$SLURM_DIR/env"
  echo "slurm: $(sinfo --version), MPI plugins: $K25_SLURM_MPI_LIST; using --mpi=$K25_SLURM_MPI"
}

# link_counters HOST: "RX_BYTES TX_BYTES RX_PACKETS TCP_IN_SEGS TCP_OUT_SEGS" of HOST's link and TCP stack.
link_counters() {
  local netns
  netns=$(awk -v h="$1" '$1 == h { print $3 }' "$EH/hosts")
  ip netns exec "$netns" python3 - <<'PY'
rx = tx = rxp = None
for line in open("/proc/net/dev"):
    name, _, data = line.partition(":")
    if name.strip() == "eth0":
        fields = data.split()
        rx, rxp, tx = int(fields[0]), int(fields[1]), int(fields[8])
snmp = [line.split() for line in open("/proc/net/snmp") if line.startswith("Tcp:")]
tcp = dict(zip(snmp[0][1:], snmp[1][1:]))
print(rx, tx, rxp, tcp["InSegs"], tcp["OutSegs"])
PY
}
