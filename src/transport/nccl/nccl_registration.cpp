// ncclMemAlloc'd buffers and the deregistration of ncclCommRegister handles and symmetric windows.
#include "transport/nccl/nccl_registration.hpp"

#include <utility>

#include "transport/nccl/cuda_check.hpp"

namespace k25::nccl {

DeviceBuffer allocate_nccl_memory(std::size_t bytes) {
  void* p = nullptr;
  K25_NCCL_CHECK(ncclMemAlloc(&p, bytes == 0 ? 4096 : bytes));
  return DeviceBuffer::adopt(p, bytes, [](void* q) { (void)ncclMemFree(q); });
}

NcclRegistration NcclRegistration::local(ncclComm_t comm, void* handle) {
  NcclRegistration registration;
  registration.comm_ = comm;
  registration.kind_ = Kind::handle;
  registration.handle_ = handle;
  return registration;
}

#if K25_NCCL_HAS_WINDOWS
NcclRegistration NcclRegistration::window(ncclComm_t comm, ncclWindow_t window) {
  NcclRegistration registration;
  registration.comm_ = comm;
  registration.kind_ = Kind::window;
  registration.handle_ = static_cast<void*>(window);
  return registration;
}
#endif

NcclRegistration::NcclRegistration(NcclRegistration&& other) noexcept
    : comm_(std::exchange(other.comm_, nullptr)),
      kind_(other.kind_),
      handle_(std::exchange(other.handle_, nullptr)) {}

NcclRegistration& NcclRegistration::operator=(NcclRegistration&& other) noexcept {
  if (this != &other) {
    reset();
    comm_ = std::exchange(other.comm_, nullptr);
    kind_ = other.kind_;
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

void NcclRegistration::reset() noexcept {
  if (comm_ != nullptr) {
    if (kind_ == Kind::handle) {
      (void)ncclCommDeregister(comm_, handle_);
    } else {
#if K25_NCCL_HAS_WINDOWS
      (void)ncclCommWindowDeregister(comm_, static_cast<ncclWindow_t>(handle_));
#endif
    }
  }
  release();
}

void NcclRegistration::release() noexcept {
  comm_ = nullptr;
  handle_ = nullptr;
}

}  // namespace k25::nccl
