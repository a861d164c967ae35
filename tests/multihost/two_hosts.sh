#!/bin/bash
# Requirement (issue 14, part 3): k25comm on 2 emulated hosts x 2 ranks (network and UTS namespaces, mpirun
# reaching the second host through the rsh agent) runs the smoke config to a complete report: 2 hosts with their
# node-local ranks, the topology per host, wrong == 0, trace.json and slowest_rank naming ranks and hosts rightly,
# and the collectives' bytes crossing the link between the namespaces as TCP.
# usage: two_hosts.sh K25COMM OUT
set -uo pipefail
K25COMM=$1 out=$2
K25_SOURCE=$(cd "$(dirname "$0")/../.." && pwd)
source "$K25_SOURCE/tests/multihost/lib.sh"

emulated_hosts_up 2
rm -rf "$out"
read -r rx0 tx0 rxp0 in0 outs0 < <(link_counters "${HOST[2]}")
timeout 240 "$EH/mpirun" -np 4 -H "${HOST[1]}:2,${HOST[2]}:2" "$K25COMM" --sizes "$K25_SOURCE/configs/smoke.yaml" \
  --out "$out" >"$out.console.txt" 2>&1
rc=$?
cat "$out.console.txt"
[ "$rc" -eq 0 ] || fail "k25comm on 2 emulated hosts exited $rc"
read -r rx1 tx1 rxp1 in1 outs1 < <(link_counters "${HOST[2]}")
echo "link of ${HOST[2]}: received $((rx1 - rx0)) B in $((rxp1 - rxp0)) packets, sent $((tx1 - tx0)) B;" \
  "TCP segments in $((in1 - in0)), out $((outs1 - outs0))"
python3 "$K25_SOURCE/tests/mpi/check_report.py" "$out" --ranks 4 --console "$out.console.txt" || exit 1
python3 "$K25_SOURCE/tests/multihost/check_multihost.py" "$out" --hosts "${HOST[1]}" "${HOST[2]}" \
  --ranks-per-host 2 --link "$((rx1 - rx0))" "$((tx1 - tx0))" "$((rxp1 - rxp0))" "$((in1 - in0))" || exit 1
