// The bounded wait of the NCCL transport: poll the stream and the communicator's async state against a
// timeout instead of blocking, so that a stuck peer or kernel turns into an error message rather than a hang.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string>

namespace k25::nccl {

struct WaitOutcome {
  enum class Kind { done, timed_out, nccl_error, cuda_error };
  Kind kind = Kind::done;
  std::string detail;       // what went wrong, in words; empty when done
  std::string failed_call;  // the call that reported it ("cudaStreamQuery", "ncclCommGetAsyncError")
  double waited_s = 0.0;
  bool ok() const { return kind == Kind::done; }
};

// Polls cudaStreamQuery(stream) and ncclCommGetAsyncError(comm) until all work on `stream` is done, the
// communicator reports an error, or `timeout_s` seconds pass. Never call on a stream that is being captured.
[[nodiscard]] WaitOutcome wait_for_stream(cudaStream_t stream, ncclComm_t comm, double timeout_s);

}  // namespace k25::nccl
