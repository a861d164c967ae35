// The NCCL transport's bounded wait for its stream: a short spin, then sleeps of 50 us between polls.
#include "transport/nccl/stream_wait.hpp"

#include <chrono>
#include <thread>

#include <fmt/format.h>

namespace k25::nccl {
namespace {

using Clock = std::chrono::steady_clock;

// Spins for the first polls (most waits end within microseconds), then sleeps so that a long wait does not
// burn a core that other ranks on the host may need.
class PollPacer {
 public:
  void pause() {
    if (++polls_ < 2000) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

 private:
  long polls_ = 0;
};

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// ncclSuccess and ncclInProgress are states; anything else is an asynchronous error.
bool nccl_failed(ncclComm_t comm, WaitOutcome& outcome) {
  ncclResult_t state = ncclSuccess;
  const ncclResult_t rc = ncclCommGetAsyncError(comm, &state);
  if (rc != ncclSuccess) state = rc;
  if (state == ncclSuccess || state == ncclInProgress) return false;
  const char* last = ncclGetLastError(comm);
  outcome.kind = WaitOutcome::Kind::nccl_error;
  outcome.failed_call = "ncclCommGetAsyncError";
  outcome.detail =
      fmt::format("NCCL reported error {} ({}){}{}", static_cast<int>(state), ncclGetErrorString(state),
                  last != nullptr && last[0] != '\0' ? ": " : "", last != nullptr ? last : "");
  return true;
}

}  // namespace

WaitOutcome wait_for_stream(cudaStream_t stream, ncclComm_t comm, double timeout_s) {
  WaitOutcome outcome;
  const auto start = Clock::now();
  PollPacer pacer;
  while (true) {
    const cudaError_t rc = cudaStreamQuery(stream);
    if (rc == cudaSuccess) break;
    if (rc != cudaErrorNotReady) {
      outcome.kind = WaitOutcome::Kind::cuda_error;
      outcome.failed_call = "cudaStreamQuery";
      outcome.detail = fmt::format("CUDA error {} ({}): {}", static_cast<int>(rc), cudaGetErrorName(rc),
                                   cudaGetErrorString(rc));
      break;
    }
    if (comm != nullptr && nccl_failed(comm, outcome)) break;
    if (seconds_since(start) > timeout_s) {
      outcome.kind = WaitOutcome::Kind::timed_out;
      outcome.failed_call = "cudaStreamQuery";
      outcome.detail =
          fmt::format("the GPU stream was still busy after {:g} s (watchdog timeout)", timeout_s);
      break;
    }
    pacer.pause();
  }
  outcome.waited_s = seconds_since(start);
  return outcome;
}

}  // namespace k25::nccl
