// NCCL user-buffer registration (--nccl-register): device memory from ncclMemAlloc, and the move-only owner
// of one registration (ncclCommRegister's handle or ncclCommWindowRegister's window), deregistered on reset.
#pragma once

#include <nccl.h>

#include <cstddef>

#include "transport/nccl/cuda_resources.hpp"

// ncclCommWindowRegister and its symmetric kernels arrived in NCCL 2.27.
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
#define K25_NCCL_HAS_WINDOWS 1
#else
#define K25_NCCL_HAS_WINDOWS 0
#endif

namespace k25::nccl {

// `bytes` of device memory from ncclMemAlloc (cuMem, granularity-aligned: what NVLS, IPC and symmetric
// registration need), freed with ncclMemFree. Throws RuntimeFault where NCCL cannot allocate it.
DeviceBuffer allocate_nccl_memory(std::size_t bytes);

class NcclRegistration {
 public:
  NcclRegistration() = default;
  // A buffer registered with ncclCommRegister on `comm`.
  static NcclRegistration local(ncclComm_t comm, void* handle);
#if K25_NCCL_HAS_WINDOWS
  // A window registered with ncclCommWindowRegister on `comm` (its deregistration is collective).
  static NcclRegistration window(ncclComm_t comm, ncclWindow_t window);
#endif
  NcclRegistration(const NcclRegistration&) = delete;
  NcclRegistration& operator=(const NcclRegistration&) = delete;
  NcclRegistration(NcclRegistration&& other) noexcept;
  NcclRegistration& operator=(NcclRegistration&& other) noexcept;
  ~NcclRegistration() {
    reset();
  }

  explicit operator bool() const {
    return comm_ != nullptr;
  }
  // Deregisters (errors ignored: this runs in destructors) and forgets.
  void reset() noexcept;
  // Forgets without deregistering: after a fault, when the communicator is aborted or may not answer.
  void release() noexcept;

 private:
  enum class Kind { handle, window };
  ncclComm_t comm_ = nullptr;
  Kind kind_ = Kind::handle;
  void* handle_ = nullptr;  // ncclCommRegister's handle or the ncclWindow_t
};

}  // namespace k25::nccl
