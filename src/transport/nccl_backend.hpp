// The NCCL transport as k25core sees it: one small table of functions, filled by k25nccl where CUDA and NCCL
// were found (nccl::nccl_backend(), transport/nccl/built_nccl_backend.hpp), else by absent_nccl_backend().
// Only the app knows which one is linked and passes it down, so that k25core links on its own in every build.
#pragma once

#include <memory>

#include "common/rank_context.hpp"
#include "transport/device_placement.hpp"
#include "transport/local_gpu.hpp"
#include "transport/p2p_measurement.hpp"
#include "transport/peer_allreduce.hpp"
#include "transport/transport.hpp"
#include "transport/transport_options.hpp"

namespace k25 {

// A peer all-reduce backend on the GPUs, or why it cannot run on this node (the same text on every rank).
struct PeerBackendChoice {
  std::unique_ptr<Transport> transport;
  std::string unavailable;
};

struct NcclBackend {
  // Whether the NCCL transport was built; false for absent_nccl_backend().
  bool built = false;
  // Collective over context.node(): the visible CUDA device this rank would drive (device_placement's rules,
  // checked over the host), or why it cannot.
  DevicePlacement (*choose_device)(const RankContext& context, bool emulate_ranks) = nullptr;
  // Collective over context.world(): the transport on `device` (from choose_device).
  std::unique_ptr<Transport> (*make)(const TransportOptions& options, const RankContext& context,
                                     int device) = nullptr;
  // Not collective: what the CUDA runtime says about visible device `device` (present = false without one).
  LocalGpu (*read_local_gpu)(const RankContext& context, int device) = nullptr;
  // Not collective, no MPI: copies between every ordered pair of the GPUs this process sees (doctor's
  // matrix); status "no GPU visible" without one, "not built" for absent_nccl_backend().
  P2pMeasurement (*measure_p2p)() = nullptr;
  // Collective over context.world(): a peer all-reduce backend (options.algorithm) on the nccl transport
  // `transport` (Transport::innermost() is the NcclTransport: its stream, device and communicator), its peer
  // buffers mapped through NCCL's window registration where NCCL offers it between these ranks, else CUDA
  // IPC; or, agreed by every rank, why it cannot run here (a pair of GPUs without P2P, an NCCL too old).
  PeerBackendChoice (*make_peer_allreduce)(Transport& transport, const PeerAllreduceOptions& options,
                                           const RankContext& context) = nullptr;
};

// The stand-in where k25comm was built without CUDA/NCCL: nothing built, no device (the problem says why), no
// transport (UsageError), no GPU to read.
const NcclBackend& absent_nccl_backend();

}  // namespace k25
