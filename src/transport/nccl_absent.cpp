// Stand-ins for the NCCL transport where k25comm was built without CUDA/NCCL: nothing built, no GPU, no
// transport.
#ifndef K25_HAVE_NCCL

#include "common/error.hpp"
#include "topology/local_gpu.hpp"
#include "transport/nccl_availability.hpp"

namespace k25 {

bool nccl_transport_built() {
  return false;
}

DevicePlacement choose_nccl_device(const RankContext&, bool) {
  return {-1, "this k25comm was built without CUDA/NCCL (rebuild where both are found)"};
}

std::unique_ptr<Transport> make_nccl_transport(const TransportOptions&, const RankContext&, int) {
  throw UsageError("--backend nccl: this k25comm was built without CUDA/NCCL (rebuild where both are found)");
}

LocalGpu read_local_gpu(const RankContext&, int) {
  return {};
}

}  // namespace k25

#endif  // K25_HAVE_NCCL
