// Non-blocking NCCL communicator setup (unique id over MPI, ncclCommInitRankConfig with blocking = 0, polled
// readiness) and its bounded teardown.
#include "transport/nccl/nccl_communicator.hpp"

#include <mpi.h>

#include <utility>

#include <fmt/format.h>

#include "common/error.hpp"
#include "transport/nccl/cuda_check.hpp"
#include "transport/nccl/watchdog.hpp"

namespace k25::nccl {

NcclCommunicator NcclCommunicator::create(const RankContext& context, double timeout_s) {
  // The id travels with rank 0's status, so that a failed ncclGetUniqueId stops every rank instead of one.
  struct {
    int status;
    ncclUniqueId id;
  } offer{};
  if (context.is_coordinator()) offer.status = static_cast<int>(ncclGetUniqueId(&offer.id));
  K25_MPI_CHECK(MPI_Bcast(&offer, static_cast<int>(sizeof offer), MPI_BYTE, 0, context.world()));
  if (offer.status != ncclSuccess)
    throw_nccl_error(static_cast<ncclResult_t>(offer.status), nullptr, "ncclGetUniqueId (on rank 0)",
                     __FILE__, __LINE__);
  const ncclUniqueId& id = offer.id;

  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  ncclComm_t comm = nullptr;
  const ncclResult_t rc = ncclCommInitRankConfig(&comm, context.size(), id, context.rank(), &config);
  if (rc != ncclSuccess && rc != ncclInProgress) {
    if (comm != nullptr) (void)ncclCommAbort(comm);
    throw_nccl_error(rc, nullptr, "ncclCommInitRankConfig", __FILE__, __LINE__);
  }
  NcclCommunicator owner(comm, timeout_s);
  const WaitOutcome ready = wait_for_communicator(comm, timeout_s);
  if (!ready.ok()) {
    owner.abort();
    throw RuntimeFault(
        fmt::format("NCCL communicator setup ({} ranks) failed: {}", context.size(), ready.detail),
        ready.failed_call, __FILE__, __LINE__);
  }
  return owner;
}

NcclCommunicator::NcclCommunicator(NcclCommunicator&& other) noexcept
    : comm_(std::exchange(other.comm_, nullptr)), timeout_s_(other.timeout_s_) {}

NcclCommunicator& NcclCommunicator::operator=(NcclCommunicator&& other) noexcept {
  if (this != &other) {
    finalize_and_destroy();
    comm_ = std::exchange(other.comm_, nullptr);
    timeout_s_ = other.timeout_s_;
  }
  return *this;
}

NcclCommunicator::~NcclCommunicator() {
  finalize_and_destroy();
}

void NcclCommunicator::abort() noexcept {
  if (comm_ == nullptr) return;
  (void)ncclCommAbort(comm_);
  comm_ = nullptr;
}

void NcclCommunicator::finalize_and_destroy() noexcept {
  if (comm_ == nullptr) return;
  const ncclResult_t rc = ncclCommFinalize(comm_);
  if (rc != ncclSuccess && rc != ncclInProgress) {
    abort();
    return;
  }
  if (!wait_for_communicator(comm_, timeout_s_).ok()) {
    abort();
    return;
  }
  (void)ncclCommDestroy(comm_);
  comm_ = nullptr;
}

}  // namespace k25::nccl
