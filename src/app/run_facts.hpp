// Facts about the run for the report: UTC time stamps, NCCL_*/OMPI_* variables (without secrets), MPI
// library, launcher rank.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/rank_context.hpp"

namespace k25 {

std::string utc_now_iso8601();
// NCCL_*, UCX_*, user-set OMPI_MCA_*, SLURM_JOB*, CUDA_VISIBLE_DEVICES: as recorded, secrets redacted.
std::map<std::string, std::string> launcher_environment();
std::string mpi_library_version();
// Collective: the online CPU cores of each host (full on rank 0), for the oversubscription caveat.
std::map<std::string, int> gather_host_cores(const RankContext& context,
                                             const std::vector<std::string>& hosts);

// The launcher's rank from the environment before MPI_Init (Open MPI, PMIx, Slurm); 0 when not launched.
int launcher_rank();
// The launcher's world size from the environment; 0 when unknown.
int launcher_size();

}  // namespace k25
