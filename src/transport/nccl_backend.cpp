// The NCCL backend of a k25comm built without CUDA/NCCL: nothing built, no GPU, no transport.
#include "transport/nccl_backend.hpp"

#include "common/error.hpp"

namespace k25 {
namespace {

constexpr const char* kNotBuilt = "this k25comm was built without CUDA/NCCL (rebuild where both are found)";

DevicePlacement no_device(const RankContext&, bool) {
  return {-1, kNotBuilt};
}

std::unique_ptr<Transport> no_transport(const TransportOptions&, const RankContext&, int) {
  throw UsageError(std::string("--backend nccl: ") + kNotBuilt);
}

LocalGpu no_gpu(const RankContext&, int) {
  return {};
}

P2pMeasurement no_measurement() {
  P2pMeasurement measurement;
  measurement.status = std::string("not built: ") + kNotBuilt;
  return measurement;
}

PeerBackendChoice no_peer_backend(Transport&, const PeerAllreduceOptions&, const RankContext&) {
  return {nullptr, kNotBuilt};
}

}  // namespace

const NcclBackend& absent_nccl_backend() {
  static const NcclBackend absent{false, no_device, no_transport, no_gpu, no_measurement, no_peer_backend};
  return absent;
}

}  // namespace k25
