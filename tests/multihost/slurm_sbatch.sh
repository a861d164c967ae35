#!/bin/bash
# Requirement (issue 14, part 2): tools/k25comm.sbatch, submitted with sbatch to our own one-node Slurm with the
# GPU request switched off (SBATCH_GPUS_PER_TASK=0) and 4 tasks, runs the nightly: a dated folder with a complete
# report, the plots, and, on a second submission, the comparison with the first run's report as baseline.
# usage: slurm_sbatch.sh K25COMM_BUILD_DIR OUT
set -uo pipefail
build=$1 out=$2
K25_SOURCE=$(cd "$(dirname "$0")/../.." && pwd)
source "$K25_SOURCE/tests/multihost/lib.sh"

slurm_up
rm -rf "$out"
mkdir -p "$out"
# The script runs from the submit folder and expects build/k25comm there: a folder with the repository's tools,
# configs and this build.
repo="$out/repo"
mkdir -p "$repo"
ln -s "$K25_SOURCE/tools" "$K25_SOURCE/configs" "$repo/"
ln -s "$build" "$repo/build"
export SBATCH_GPUS_PER_TASK=0 OMPI_MCA_mpi_yield_when_idle=1
export K25_CONFIG=configs/smoke.yaml K25_OUT_ROOT="$out/nightly" K25_BASELINE="$out/baseline.json" K25_UPDATE_BASELINE=1
submit() {  # submit N: the N-th job, waited for; its log in $out/job-N.out
  local rc
  (cd "$repo" && timeout 200 sbatch --wait --ntasks=4 --overcommit --output="$out/job-$1.out" \
    tools/k25comm.sbatch)
  rc=$?
  [ "$rc" -eq 124 ] && { timeout -k 1 10 squeue; timeout -k 1 10 scontrol show job; }
  return "$rc"
}
submit 1
rc=$?
cat "$out/job-1.out"
[ "$rc" -eq 0 ] || fail "the first sbatch job exited $rc"
grep -q "srun --mpi=pmix" "$out/job-1.out" || fail "the job did not say it launched with srun --mpi=pmix"
first=$(readlink -f "$out/nightly/latest")
python3 "$K25_SOURCE/tests/mpi/check_report.py" "$first" --ranks 4 || exit 1
for plot in burst_vs_tokens.png alltoall_vs_tokens.png; do
  [ -s "$first/$plot" ] || fail "no $plot in $first"
done
[ -s "$out/baseline.json" ] || fail "the first run did not become the baseline"

submit 2
rc=$?
cat "$out/job-2.out"
[ "$rc" -le 1 ] || fail "the second sbatch job exited $rc (0: no regression, 1: a regression on this noisy machine)"
second=$(readlink -f "$out/nightly/latest")
[ "$second" != "$first" ] || fail "the second run wrote no new dated folder"
grep -q "allreduce" "$second/compare.txt" || fail "no comparison in $second/compare.txt"
[ -d "$second/vs-baseline" ] || fail "no baseline-vs-run plots"
echo "ok: two sbatch jobs of tools/k25comm.sbatch: report, plots, baseline, comparison (second exited $rc)"
