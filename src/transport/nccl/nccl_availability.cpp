// The NCCL side of the backend choice, where the NCCL transport is built: it is, and it says how many GPUs it
// sees.
#include "transport/nccl_availability.hpp"

#include "transport/nccl/device_selection.hpp"
#include "transport/nccl/nccl_transport.hpp"

namespace k25 {

bool nccl_transport_built() {
  return true;
}

int visible_cuda_devices() {
  return nccl::visible_device_count();
}

std::unique_ptr<Transport> make_nccl_transport(const RunConfig& config, const RankContext& context) {
  return std::make_unique<nccl::NcclTransport>(config, context);
}

}  // namespace k25
