// What the NCCL side offers to the backend choice: whether it was built, which GPU a rank would drive, and
// the constructor of the nccl transport. Implemented by src/transport/nccl/ when built, else by stubs.
#pragma once

#include <memory>

#include "common/rank_context.hpp"
#include "transport/device_placement.hpp"
#include "transport/transport.hpp"
#include "transport/transport_options.hpp"

namespace k25 {

bool nccl_transport_built();
// Collective over context.node(): the visible CUDA device this rank would drive (device_placement's rules,
// checked over the host), or why it cannot. Without the NCCL transport: the problem says so.
DevicePlacement choose_nccl_device(const RankContext& context, bool emulate_ranks);
// Collective over context.world(): the transport on `device` (from choose_nccl_device).
std::unique_ptr<Transport> make_nccl_transport(const TransportOptions& options, const RankContext& context,
                                               int device);

}  // namespace k25
