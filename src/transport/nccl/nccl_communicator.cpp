// Blocking NCCL communicator: set-up bounded by a helper thread, calls armed on the rank's watchdog, aborts
// on its action thread, teardown.
#include "transport/nccl/nccl_communicator.hpp"

#include <mpi.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "common/bounded_wait.hpp"
#include "common/error.hpp"
#include "transport/nccl/cuda_check.hpp"
#include "transport/op_wait_point.hpp"

namespace k25::nccl {
namespace {

// What the set-up thread hands back. Shared, so that a thread still stuck in NCCL after the deadline writes
// into memory that outlives the wait.
struct InitAttempt {
  std::mutex mutex;
  std::condition_variable done_signal;
  bool done = false;
  ncclResult_t result = ncclSuccess;
  ncclComm_t comm = nullptr;
};

}  // namespace

NcclCommunicator NcclCommunicator::create(const RankContext& context, int device, double timeout_s) {
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

  auto attempt = std::make_shared<InitAttempt>();
  std::thread([attempt, device, ranks = context.size(), rank = context.rank(), id = offer.id] {
    ncclResult_t result = ncclUnhandledCudaError;
    ncclComm_t comm = nullptr;
    if (cudaSetDevice(device) == cudaSuccess) {  // the current device is per thread
      ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
      config.blocking = 1;
      result = ncclCommInitRankConfig(&comm, ranks, id, rank, &config);
    }
    std::lock_guard lock(attempt->mutex);
    attempt->result = result;
    attempt->comm = comm;
    attempt->done = true;
    attempt->done_signal.notify_all();
  }).detach();

  std::unique_lock lock(attempt->mutex);
  if (!attempt->done_signal.wait_for(lock, std::chrono::duration<double>(timeout_s),
                                     [&] { return attempt->done; }))
    throw RuntimeFault(
        fmt::format(
            "NCCL communicator setup ({} ranks) did not finish within {:g} s (watchdog timeout): a peer did not reach ncclCommInitRank, or cannot be reached",
            context.size(), timeout_s),
        "ncclCommInitRankConfig", __FILE__, __LINE__);
  if (attempt->result != ncclSuccess) {
    if (attempt->comm != nullptr) (void)ncclCommAbort(attempt->comm);
    throw_nccl_error(attempt->result, nullptr, "ncclCommInitRankConfig", __FILE__, __LINE__);
  }

  NcclCommunicator owner;
  owner.state_ = std::make_unique<State>();
  owner.state_->comm = attempt->comm;
  owner.state_->device = device;
  owner.state_->watchdog = make_rank_watchdog(context);
  return owner;
}

NcclCommunicator& NcclCommunicator::operator=(NcclCommunicator&& other) noexcept {
  if (this != &other) {
    finalize_and_destroy();
    state_ = std::move(other.state_);
  }
  return *this;
}

NcclCommunicator::~NcclCommunicator() {
  finalize_and_destroy();
}

void NcclCommunicator::abort(const std::string& after) noexcept {
  if (!state_ || state_->comm == nullptr) return;
  State* state = state_.get();
  state->watchdog->run_abort(
      [state] {
        (void)cudaSetDevice(
            state->device);  // the current device is per thread; abort frees this GPU's resources
        (void)ncclCommAbort(state->comm);
        state->comm = nullptr;
      },
      "ncclCommAbort after " + after);
}

void NcclCommunicator::finalize_and_destroy() noexcept {
  if (!state_) return;
  if (ncclComm_t comm = state_->comm; comm != nullptr) {
    ncclResult_t finalized = ncclSuccess;
    {
      const OpWaitPoint point("ncclCommFinalize at the end of the run (flushing every rank's operations)");
      const ArmedWait armed(*state_->watchdog, point);
      finalized = ncclCommFinalize(comm);
    }
    if (finalized != ncclSuccess) {
      abort("ncclCommFinalize failed at the end of the run");
    } else {
      const OpWaitPoint point("ncclCommDestroy at the end of the run");
      const ArmedWait armed(*state_->watchdog, point);
      (void)ncclCommDestroy(comm);
      state_->comm = nullptr;
    }
  }
  state_.reset();  // joins the watchdog's threads
}

}  // namespace k25::nccl
