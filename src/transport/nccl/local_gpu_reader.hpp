// The CUDA runtime's view of this rank's GPU, for the topology probe (through NcclBackend::read_local_gpu).
#pragma once

#include "common/rank_context.hpp"
#include "transport/local_gpu.hpp"

namespace k25::nccl {

// Not collective. `device`: the visible CUDA device this rank drives; present = false when out of range.
LocalGpu read_local_gpu(const RankContext& context, int device);

}  // namespace k25::nccl
