// Which CUDA device this rank drives (transport/device_placement's rules) and the checks, collective over the
// host, that no two ranks of it drive the same GPU.
#pragma once

#include "common/rank_context.hpp"
#include "transport/device_placement.hpp"

namespace k25::nccl {

// Number of CUDA devices this process sees; 0 when there is no driver, no device, or any other error.
int visible_device_count() noexcept;

// Collective over context.node() (every rank of the host must call it): places this rank on a device and,
// unless emulate_ranks, checks by PCI bus id that no two ranks of the host drive the same GPU. Every rank of
// a host gets the host's first problem. Touches no NCCL and sets no device.
DevicePlacement choose_local_device(const RankContext& context, bool emulate_ranks);

}  // namespace k25::nccl
