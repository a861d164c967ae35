// Owner of this rank's NCCL communicator: blocking, as vLLM's PyNccl, PyTorch and nccl-tests use it, so that
// what is timed is what a serving engine sees. Set-up runs on a helper thread with a deadline; every blocking
// call afterwards runs under a watchdog thread that aborts the communicator when the call outlasts the
// timeout.
#pragma once

#include <nccl.h>

#include <atomic>
#include <memory>

#include "common/rank_context.hpp"
#include "transport/call_watchdog.hpp"

namespace k25::nccl {

class NcclCommunicator {
 public:
  NcclCommunicator() = default;
  // Collective over context.world(): rank 0 makes the unique id, MPI broadcasts it, every rank calls
  // ncclCommInitRankConfig (blocking = 1) for `device` on a helper thread and waits for it at most timeout_s.
  // NCCL rank = world rank. Throws RuntimeFault on an error or after the timeout (the stuck set-up is left to
  // the process's end: there is no handle to abort yet).
  static NcclCommunicator create(const RankContext& context, int device, double timeout_s);

  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;
  NcclCommunicator(NcclCommunicator&& other) noexcept = default;
  NcclCommunicator& operator=(NcclCommunicator&& other) noexcept;
  ~NcclCommunicator();  // finalize_and_destroy()

  // The communicator; nullptr once aborted (by abort() or by the watchdog).
  ncclComm_t get() const noexcept { return state_ ? state_->comm.load(std::memory_order_acquire) : nullptr; }
  explicit operator bool() const noexcept { return get() != nullptr; }

  // Brackets one blocking NCCL call (or group): if it lasts longer than the timeout, the watchdog thread
  // calls ncclCommAbort, which makes the call return; check watchdog_fired() after it. If even that does not
  // free the call within 10 s, the watchdog prints what it knows and ends the process with exit code 3.
  [[nodiscard]] CallWatchdog::Armed guard() noexcept { return state_->watchdog->arm(); }
  bool watchdog_fired() const noexcept { return state_ && state_->watchdog->fired(); }
  double timeout_s() const noexcept { return state_ ? state_->watchdog->timeout_s() : 0.0; }

  // Stops every operation of the communicator, frees it, and forgets it. Safe to call twice, from either
  // thread.
  void abort() noexcept;
  // Flushes and frees the communicator (ncclCommFinalize, ncclCommDestroy) under the watchdog.
  void finalize_and_destroy() noexcept;

 private:
  // On the heap, so that the watchdog's thread keeps a stable address when the owner moves.
  struct State {
    std::atomic<ncclComm_t> comm{nullptr};
    std::unique_ptr<CallWatchdog> watchdog;
    void abort() noexcept;
  };
  std::unique_ptr<State> state_;
};

}  // namespace k25::nccl
