// The topology stage: what each rank's GPU is and how it is linked, gathered on the coordinator and labelled.
#pragma once

#include "common/rank_context.hpp"
#include "topology/topology_info.hpp"

namespace k25 {

// Collective over context.world() when gpu_transport is true (every rank must pass the same value): each rank
// reads its own GPU (the one the nccl transport drives: node-local rank) through NVML loaded with dlopen,
// falling back to sysfs for the PCIe link and to the CUDA runtime for the name; the coordinator gathers every
// rank's record, builds the peer-access matrix (rank order; 0 across hosts) and labels the run (see
// label_topology). The full record is returned on the coordinator; other ranks get only their own GPU.
// gpu_transport false (mpi transport): no GPU is read, kind "host". On the coordinator `hosts` lists every
// host with its ranks in node-local order (label_hosts). Never throws for a missing NVML or sysfs file.
TopologyInfo probe_topology(const RankContext& context, bool gpu_transport);

// This rank's GPU record alone (not collective): NVML, then sysfs, then the CUDA runtime's own facts.
// Also returns this GPU's peer-access row over the node-local ranks and the NCCL version, through the
// out-params.
GpuInfo read_gpu_info(const RankContext& context, std::vector<int>* peer_row = nullptr,
                      std::string* nccl_version = nullptr);

}  // namespace k25
