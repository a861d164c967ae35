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

int visible_cuda_devices() {
  return 0;
}

std::unique_ptr<Transport> make_nccl_transport(const RunConfig&, const RankContext&) {
  throw UsageError("--backend nccl: this k25comm was built without CUDA/NCCL (rebuild where both are found)");
}

LocalGpu read_local_gpu(const RankContext&) {
  return {};
}

}  // namespace k25

#endif  // K25_HAVE_NCCL
