// CUDA and NCCL call checks that throw k25::RuntimeFault (exit 3) carrying the failed call, file and line.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <fmt/format.h>

#include "common/error.hpp"

namespace k25::nccl {

[[noreturn]] inline void throw_cuda_error(cudaError_t rc, const char* call, const char* file, int line) {
  throw RuntimeFault(fmt::format("CUDA error {} ({}): {}", static_cast<int>(rc), cudaGetErrorName(rc),
                                 cudaGetErrorString(rc)),
                     call, file, line);
}

[[noreturn]] inline void throw_nccl_error(ncclResult_t rc, ncclComm_t comm, const char* call,
                                          const char* file, int line) {
  const char* detail = ncclGetLastError(comm);
  throw RuntimeFault(
      fmt::format("NCCL error {} ({}){}{}", static_cast<int>(rc), ncclGetErrorString(rc),
                  detail != nullptr && detail[0] != '\0' ? ": " : "", detail != nullptr ? detail : ""),
      call, file, line);
}

}  // namespace k25::nccl

// For calls that must return cudaSuccess.
#define K25_CUDA_CHECK(call)                                                                                 \
  do {                                                                                                       \
    const cudaError_t k25_cuda_rc_ = (call);                                                                 \
    if (k25_cuda_rc_ != cudaSuccess) ::k25::nccl::throw_cuda_error(k25_cuda_rc_, #call, __FILE__, __LINE__); \
  } while (0)

// For NCCL calls outside any communicator's non-blocking state (ncclGetUniqueId, ncclGetVersion).
// Calls on a non-blocking communicator go through NcclCommunicator::check, which handles ncclInProgress.
#define K25_NCCL_CHECK(call)                                                           \
  do {                                                                                 \
    const ncclResult_t k25_nccl_rc_ = (call);                                          \
    if (k25_nccl_rc_ != ncclSuccess)                                                   \
      ::k25::nccl::throw_nccl_error(k25_nccl_rc_, nullptr, #call, __FILE__, __LINE__); \
  } while (0)
