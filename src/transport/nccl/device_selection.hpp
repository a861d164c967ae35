// Which CUDA device a rank drives: the visible device at its node-local rank (one GPU per rank, as NCCL
// requires).
#pragma once

#include "common/rank_context.hpp"

namespace k25::nccl {

// Number of CUDA devices this process sees; 0 when there is no driver, no device, or any other error.
int visible_device_count() noexcept;

// Collective over context.world(), before NCCL is touched: checks on every rank that its host has at least as
// many visible CUDA devices as ranks, and throws the same UsageError on every rank where one host does not.
// Returns this rank's device index (its local rank) and makes it the current device.
int select_cuda_device(const RankContext& context);

}  // namespace k25::nccl
