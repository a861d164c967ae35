#!/bin/bash
# A one-node Slurm cluster of our own for tests: munged, slurmctld and slurmd from Debian's slurm-wlm, configured
# into a temporary folder (keys, sockets, state, spool, logs, the jobs' TmpFS), on 127.0.0.1. Nothing of the
# system's Slurm or MUNGE (/etc/slurm, /etc/munge, /run/munge) is read or touched. Root only. Clusters can run side
# by side: each has its own two ports, from outside the ephemeral range (tests/common/ports.py; ports another
# program took first are retried with others, said on stderr), and job ids of its own (FirstJobId from its port:
# Open MPI and Slurm's PMIx plugin name session folders and shared memory after the job id).
#
#   slurm_cluster.sh up DIR      start the daemons; writes DIR/env (source it: SLURM_CONF and the PMIx plugin)
#   slurm_cluster.sh down DIR    stop the daemons (TERM, then KILL after 10 s), then remove DIR
#
# The node has as many CPUs as this machine; jobs may run more tasks than CPUs with srun/sbatch --overcommit.
# DIR/env sets K25_SLURM_MPI to the PMIx plugin this Slurm offers for Open MPI (pmix, else pmix_v4, else pmi2).
set -euo pipefail
source "$(dirname "$0")/../common/wait.sh"
source "$(dirname "$0")/../common/processes.sh"

die() {
  echo "slurm_cluster: $*" >&2
  exit 2
}

command=${1:-}
dir=${2:-}
[ -n "$command" ] && [ -n "$dir" ] || die "usage: slurm_cluster.sh up|down DIR"

stop_pid() {  # stop_pid FILE: TERM the daemon whose pid FILE holds (one we started), KILL it after 10 s
  local file=$1 pid
  [ -s "$file" ] || return 0
  pid=$(cat "$file")
  kill -TERM "$pid" 2>/dev/null || return 0
  wait_until 10 "pid $pid ending on SIGTERM" pid_gone "$pid" && return 0
  echo "slurm_cluster: $WAIT_ERROR; SIGKILL" >&2
  kill -KILL "$pid" 2>/dev/null || true
}

# This cluster's processes other than this script and its callers: those with its SLURM_CONF in their environment
# (job scripts, tasks, the tests' srun and sbatch) and those holding a file of its folder open (slurmstepd, which
# clears its environment but keeps slurmd's log open). All were started through this fixture.
cluster_processes() {
  local p ancestors=" " up=$$
  while [ "$up" -gt 1 ] 2>/dev/null; do
    ancestors+="$up "
    up=$(awk '{ print $4 }' "/proc/$up/stat" 2>/dev/null || echo 0)
  done
  for p in $({ pids_with_env "SLURM_CONF=$dir/slurm.conf"; pids_with_open "$dir/"; } | sort -un); do
    [[ "$ancestors" == *" $p "* ]] || echo "$p"
  done
  return 0
}

tear_down() {
  [ -d "$dir" ] || return 0
  if [ -f "$dir/slurm.conf" ] && [ -s "$dir/slurmctld.started" ] && ! pid_gone "$(cat "$dir/slurmctld.started")"; then
    # Jobs still running (a test that failed or timed out): cancel them and give their steps a moment.
    export SLURM_CONF="$dir/slurm.conf"
    timeout -k 1 10 scancel --quiet --full --user="$(id -un)" 2>/dev/null || true
    wait_until 10 "the cancelled jobs leaving the queue" sh -c '[ -z "$(squeue -h 2>/dev/null)" ]' ||
      echo "slurm_cluster: $WAIT_ERROR" >&2
  fi
  # slurmd, then the controller; then whatever of the jobs is left; then MUNGE.
  stop_pid "$dir/slurmd.started"
  stop_pid "$dir/slurmctld.started"
  local left
  left=$(cluster_processes)
  # shellcheck disable=SC2086  # a list of pids
  [ -z "$left" ] || kill -KILL $left 2>/dev/null || true
  stop_pid "$dir/munged.started"
  rm -rf "$dir"
}

bring_up() {
  [ "$(id -u)" -eq 0 ] || die "needs root (slurmd runs job steps as their user)"
  for tool in munged slurmctld slurmd srun sinfo; do
    command -v "$tool" >/dev/null || die "$tool not found (tools/setup installs slurm-wlm and munge)"
  done
  [ ! -e "$dir/slurm.conf" ] || die "$dir already holds a cluster (run 'down' first)"
  mkdir -p "$dir"
  chmod 755 "$dir"  # munged wants its socket's folders searchable by all
  mkdir -m 755 -p "$dir/munge"
  mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/tmp"
  # MUNGE: a fresh key, its socket here, origin on the loopback address (no name lookup).
  head -c 1024 /dev/urandom >"$dir/munge/munge.key"
  chmod 600 "$dir/munge/munge.key"
  munged -F --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
    --log-file="$dir/log/munged.log" --pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge/munged.seed" \
    --origin=127.0.0.1 --num-threads=2 </dev/null >"$dir/log/munged.out" 2>&1 &
  echo $! >"$dir/munged.started"
  wait_until --alive "$(cat "$dir/munged.started")" 30 "munged's socket" test -S "$dir/munge/munge.socket" ||
    die "munged did not start: $WAIT_ERROR: $(cat "$dir/log/munged.out" "$dir/log/munged.log" 2>/dev/null)"

  export SLURM_CONF="$dir/slurm.conf"
  local port attempt
  for attempt in 1 2 3 4 5; do
    if [ "$attempt" -eq 1 ] && [ -n "${K25_SLURM_FIRST_PORT:-}" ]; then
      port=$K25_SLURM_FIRST_PORT  # test-only: the first try's port (tests/multihost/slurm_port_taken.sh)
    else
      port=$(pick_ports 2) || die "no two free ports for slurmctld and slurmd"
    fi
    start_daemons "$port" && break
    if [ "$attempt" -lt 5 ] && grep -qs "Address already in use" "$dir"/log/slurm*; then
      echo "slurm_cluster: port $port or $((port + 1)) was taken when the daemons bound it (attempt $attempt" \
        "of 5); retrying with other ports" >&2
      stop_pid "$dir/slurmd.started"
      stop_pid "$dir/slurmctld.started"
      continue
    fi
    show_logs
    die "$WAIT_ERROR"
  done
  echo "slurm_cluster: up in $dir: ports $port and $((port + 1)), node idle after $WAITED s"

  # The PMIx plugin for Open MPI: Debian's Slurm names it pmix (and pmix_v4, the same library).
  local plugins mpi=""
  plugins=$(timeout -k 1 30 srun --mpi=list 2>&1)
  for candidate in pmix pmix_v4 pmi2; do
    if grep -qw "$candidate" <<<"$plugins"; then
      mpi=$candidate
      break
    fi
  done
  [ -n "$mpi" ] || die "srun --mpi=list offers no PMIx or PMI-2 plugin: $plugins"
  {
    echo "export SLURM_CONF='$SLURM_CONF'"
    echo "export K25_SLURM_MPI=$mpi"
    echo "export K25_SLURM_MPI_LIST='$(tr '\n' ' ' <<<"$plugins")'"
  } >"$dir/env"
}

show_logs() { cat "$dir"/log/*.out "$dir/log/slurmctld.log" "$dir/log/slurmd.log" 2>/dev/null | tail -40 >&2; }

# start_daemons PORT: slurm.conf with SlurmctldPort PORT and SlurmdPort PORT+1, then slurmctld and slurmd started
# and waited for until both listen and the node is idle. Fails (WAIT_ERROR says why) when a daemon ends first (a
# port taken: another program may be the one listening there) or 60 s pass at either step.
start_daemons() {
  local port=$1 host cpus
  host=$(hostname -s)
  cpus=$(nproc)
  rm -f "$dir"/log/slurm*
  cat >"$SLURM_CONF" <<EOF
# Written by tests/multihost/slurm_cluster.sh for one test run; removed at its end.
ClusterName=k25ci
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
FirstJobId=$((port * 1000))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
TmpFS=$dir/tmp
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
InactiveLimit=0
KillWait=5
MinJobAge=30
NodeName=k25node NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=k25 Nodes=k25node Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
  slurmctld -D -i -f "$SLURM_CONF" </dev/null >"$dir/log/slurmctld.out" 2>&1 &
  echo $! >"$dir/slurmctld.started"
  slurmd -D -N k25node -f "$SLURM_CONF" </dev/null >"$dir/log/slurmd.out" 2>&1 &
  echo $! >"$dir/slurmd.started"
  local daemons=(--alive "$(cat "$dir/slurmctld.started")" --alive "$(cat "$dir/slurmd.started")")
  wait_until "${daemons[@]}" 60 "slurmctld and slurmd listening on ports $port and $((port + 1))" \
    daemons_listening "$port" || return 1
  wait_until "${daemons[@]}" 60 "node k25node idle" \
    sh -c '[ "$(sinfo -h -N -n k25node -o %t 2>/dev/null)" = idle ]' && return 0
  WAIT_ERROR+=" (state '$(timeout -k 1 10 sinfo -h -N -n k25node -o %t 2>&1)')"
  return 1
}

daemons_listening() { port_listening "$1" && port_listening $(($1 + 1)); }

case "$command" in
  up) bring_up ;;
  down) tear_down ;;
  *) die "unknown command '$command' (up, down)" ;;
esac
