#!/bin/bash
# The test-only --inject-hang on the host transport: rank 1 stops before op 2 of the AllReduce burst at 4 tokens
# (a step of its op descriptors, plan/rank_ops.cpp). The bounded waits end the job with exit 3: the peers name the
# op they wait in, rank 1 the injected hang; the journal keeps the 1-token results gathered before.
# usage: injected_hang_host.sh K25COMM MPIRUN SMOKE_CONFIG OUT
set -uo pipefail
K25COMM=$1 MPIRUN=$2 config=$3 out=$4
here=$(dirname "$0")
source "$here/lib.sh"
timeout_s=3
rm -rf "$out"
mark_time
"$MPIRUN" -np 3 --oversubscribe "$K25COMM" --sizes "$config" --backend mpi --tokens 1,4 --phases allreduce \
  --iters 5 --timeout "$timeout_s" --inject-hang allreduce:4:2:1 --out "$out" >"$out.log" 2>&1
rc=$?
cat "$out.log"
[ "$rc" -eq 3 ] || { echo "FAIL: exit code $rc, expected 3"; exit 1; }
for pattern in "^k25comm: error: rank [02] of 3 \([^)]+\): MPI_I?Allreduce of allreduce at 4 tokens, op 2 of 8 \(2048 bytes\) did not complete within the $timeout_s s timeout" \
  "^k25comm: error: rank 1 of 3 \([^)]+\): the hang injected by --inject-hang ahead of allreduce at 4 tokens, op 2 of 8 "; do
  grep -qE "$pattern" "$out.log" || { echo "FAIL: no message matching: $pattern"; exit 1; }
done
no_ranks_left "$out" || exit 1
python3 "$here/check_outputs.py" "$out" journal --min-results 1 || exit 1
echo "ok: injected hang on rank 1 of 3: exit 3, rank 1 named"
