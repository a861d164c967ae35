// Blocking NCCL communicator: set-up bounded by a helper thread, calls bounded by the abort watchdog,
// teardown.
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

#include "common/error.hpp"
#include "transport/nccl/cuda_check.hpp"

namespace k25::nccl {
namespace {

constexpr double kStuckGraceS = 10.0;  // after ncclCommAbort, how long a blocked call may take to return

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

void NcclCommunicator::State::abort() noexcept {
  if (ncclComm_t c = comm.exchange(nullptr, std::memory_order_acq_rel); c != nullptr) (void)ncclCommAbort(c);
}

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
        fmt::format("NCCL communicator setup ({} ranks) did not finish within {:g} s (watchdog "
                    "timeout): a peer did not reach ncclCommInitRank, or cannot be reached",
                    context.size(), timeout_s),
        "ncclCommInitRankConfig", __FILE__, __LINE__);
  if (attempt->result != ncclSuccess) {
    if (attempt->comm != nullptr) (void)ncclCommAbort(attempt->comm);
    throw_nccl_error(attempt->result, nullptr, "ncclCommInitRankConfig", __FILE__, __LINE__);
  }

  NcclCommunicator owner;
  owner.state_ = std::make_unique<State>();
  State* state = owner.state_.get();
  state->comm.store(attempt->comm, std::memory_order_release);
  const int rank = context.rank();
  const std::string host = context.host();
  state->watchdog = std::make_unique<CallWatchdog>(
      timeout_s,
      [state, device] {
        (void)cudaSetDevice(
            device);  // the current device is per thread; abort tears down this GPU's resources
        state->abort();
      },
      [rank, host, timeout_s] {
        // The blocked thread cannot be freed: say so and end the process (the journal is already on disk).
        std::fprintf(
            stderr,
            "k25comm: error: rank %d on %s: an NCCL call did not return within %g s (watchdog timeout), "
            "nor %g s after ncclCommAbort; ending this rank with exit code 3\n",
            rank, host.c_str(), timeout_s, kStuckGraceS);
        std::fflush(nullptr);
        std::_Exit(static_cast<int>(ExitCode::runtime_fault));
      },
      kStuckGraceS);
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

void NcclCommunicator::abort() noexcept {
  if (state_) state_->abort();
}

void NcclCommunicator::finalize_and_destroy() noexcept {
  if (!state_) return;
  if (ncclComm_t comm = get(); comm != nullptr) {
    const auto armed = guard();
    if (ncclCommFinalize(comm) != ncclSuccess || state_->watchdog->fired()) {
      state_->abort();
    } else if (ncclComm_t kept = state_->comm.exchange(nullptr); kept != nullptr) {
      (void)ncclCommDestroy(kept);
    }
  }
  state_.reset();  // joins the watchdog thread
}

}  // namespace k25::nccl
