// The NCCL side of the backend table, where the NCCL transport is built: it is, and it places ranks on GPUs.
#include "transport/nccl/built_nccl_backend.hpp"

#include "transport/nccl/device_selection.hpp"
#include "transport/nccl/local_gpu_reader.hpp"
#include "transport/nccl/nccl_transport.hpp"
#include "transport/nccl/p2p_copies.hpp"
#include "transport/nccl/peer_allreduce_transport.hpp"

namespace k25::nccl {
namespace {

std::unique_ptr<Transport> make_nccl_transport(const TransportOptions& options, const RankContext& context,
                                               int device) {
  return std::make_unique<NcclTransport>(options, context, device);
}

}  // namespace

const NcclBackend& nccl_backend() {
  static const NcclBackend built{true,           choose_local_device, make_nccl_transport,
                                 read_local_gpu, measure_p2p_copies,  make_peer_allreduce};
  return built;
}

}  // namespace k25::nccl
