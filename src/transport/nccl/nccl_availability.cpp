// The NCCL side of the backend choice, where the NCCL transport is built: it is, and it places ranks on GPUs.
#include "transport/nccl_availability.hpp"

#include "transport/nccl/device_selection.hpp"
#include "transport/nccl/nccl_transport.hpp"

namespace k25 {

bool nccl_transport_built() {
  return true;
}

DevicePlacement choose_nccl_device(const RankContext& context, bool emulate_ranks) {
  return nccl::choose_local_device(context, emulate_ranks);
}

std::unique_ptr<Transport> make_nccl_transport(const TransportOptions& options, const RankContext& context,
                                               int device) {
  return std::make_unique<nccl::NcclTransport>(options, context, device);
}

}  // namespace k25
