// The topology stage: what each rank's GPU is and how it is linked, gathered on the coordinator and labelled.
#pragma once

#include "common/rank_context.hpp"
#include "topology/topology_info.hpp"
#include "transport/nccl_backend.hpp"

namespace k25 {

// Collective over context.world() when device >= 0 (every rank must pass a device, or none does): each rank
// reads its own GPU (`device`, the one the nccl transport drives) through NVML loaded with dlopen,
// falling back to sysfs for the PCIe link and to the CUDA runtime for the name; the coordinator gathers every
// rank's record, builds the peer-access matrix (rank order; 0 across hosts) and labels the run (see
// label_topology). The full record is returned on the coordinator; other ranks get only their own GPU.
// device < 0 (mpi transport): no GPU is read, kind "host". On the coordinator `hosts` lists every host with
// its ranks in node-local order (label_hosts). Never throws for a missing NVML or sysfs file. `nccl` reads
// the CUDA runtime's facts (NcclBackend::read_local_gpu; none with absent_nccl_backend()).
TopologyInfo probe_topology(const RankContext& context, int device, const NcclBackend& nccl);

// This rank's GPU record alone (not collective): NVML, then sysfs, then the CUDA runtime's own facts.
// Also returns this GPU's peer-access row over the devices this process sees, their bus ids and the NCCL
// version, through the out-params.
GpuInfo read_gpu_info(const RankContext& context, int device, const NcclBackend& nccl,
                      std::vector<int>* peer_row = nullptr,
                      std::vector<std::string>* visible_bus_ids = nullptr,
                      std::string* nccl_version = nullptr);

}  // namespace k25
