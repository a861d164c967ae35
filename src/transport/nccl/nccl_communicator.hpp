// Owner of this rank's NCCL communicator: blocking, as vLLM's PyNccl, PyTorch and nccl-tests use it, so that
// what is timed is what a serving engine sees. Set-up runs on a helper thread with a deadline; every blocking
// call afterwards is armed on the rank's watchdog; an abort runs on the watchdog's action thread, bounded by
// its grace period.
//
// Why an expired call ends the job instead of being aborted: NCCL forbids using one communicator from two
// threads at once (user guide, "Thread Safety"), and ncclCommAbort frees the communicator (init.cc:
// ncclCommAbort -> commReclaim -> commFree) while the blocked call may still read it; NCCL's fault tolerance
// asks for non-blocking communicators so that ncclCommAbort can run between calls. A blocking call that does
// not return is therefore never aborted from another thread: the watchdog ends the job with exit code 3,
// naming the rank and the call. Aborts run only between calls (abort()), when the rank's own bounded wait on
// its stream found a fault.
#pragma once

#include <nccl.h>

#include <memory>
#include <string>

#include "common/call_watchdog.hpp"
#include "common/rank_context.hpp"

namespace k25::nccl {

class NcclCommunicator {
 public:
  NcclCommunicator() = default;
  // Collective over context.world(): rank 0 makes the unique id, MPI broadcasts it, every rank calls
  // ncclCommInitRankConfig (blocking = 1) for `device` on a helper thread and waits for it at most timeout_s.
  // NCCL rank = world rank. Throws RuntimeFault on an error or after the timeout (the stuck set-up is left to
  // the process's end: there is no handle to abort yet). The watchdog's timeout is context's collective
  // timeout; `context` must outlive the communicator.
  static NcclCommunicator create(const RankContext& context, int device, double timeout_s);

  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;
  NcclCommunicator(NcclCommunicator&& other) noexcept = default;
  NcclCommunicator& operator=(NcclCommunicator&& other) noexcept;
  ~NcclCommunicator();  // finalize_and_destroy()

  // The communicator; nullptr once aborted.
  ncclComm_t get() const noexcept { return state_ ? state_->comm : nullptr; }
  explicit operator bool() const noexcept { return get() != nullptr; }

  // The watchdog every blocking NCCL call (and graph launch) of the rank is armed on (ArmedWait).
  CallWatchdog& watchdog() noexcept { return *state_->watchdog; }

  // Stops every operation of the communicator and frees it: ncclCommAbort on the watchdog's action thread,
  // which ends the process, naming `after`, should it not return within the grace period. Only between
  // calls, from the thread that makes them, with every CUDA graph that captured the communicator destroyed
  // first (else ncclCommAbort waits for them for ever: commDestroySync polls until the communicator's
  // persistent references are gone). Does nothing once aborted.
  void abort(const std::string& after) noexcept;
  // Flushes and frees the communicator (ncclCommFinalize, ncclCommDestroy), each call armed on the watchdog.
  void finalize_and_destroy() noexcept;

 private:
  // On the heap, so that the watchdog's threads keep a stable address when the owner moves.
  struct State {
    ncclComm_t comm = nullptr;  // written by the action thread only inside run_abort, which orders it
    int device = -1;
    std::unique_ptr<CallWatchdog> watchdog;
  };
  std::unique_ptr<State> state_;
};

}  // namespace k25::nccl
