// Move-only owners of CUDA resources: stream, event, device buffer, pinned host buffer, graph and graph exec.
// Destructors never throw and ignore errors; release() gives a handle up without freeing it, which the
// transport uses after a fault, when freeing could block on a GPU that no longer makes progress.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <utility>

#include "transport/nccl/cuda_check.hpp"

namespace k25::nccl {

// Shared move-only handle logic: Traits::destroy(handle) frees a non-null handle.
template <typename Handle, typename Traits>
class CudaHandle {
 public:
  CudaHandle() = default;
  explicit CudaHandle(Handle handle) : handle_(handle) {}
  CudaHandle(const CudaHandle&) = delete;
  CudaHandle& operator=(const CudaHandle&) = delete;
  CudaHandle(CudaHandle&& other) noexcept : handle_(std::exchange(other.handle_, Handle{})) {}
  CudaHandle& operator=(CudaHandle&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, Handle{});
    }
    return *this;
  }
  ~CudaHandle() { reset(); }

  Handle get() const { return handle_; }
  explicit operator bool() const { return handle_ != Handle{}; }
  Handle release() { return std::exchange(handle_, Handle{}); }
  void reset() {
    if (handle_ != Handle{}) Traits::destroy(handle_);
    handle_ = Handle{};
  }

 private:
  Handle handle_{};
};

struct StreamTraits {
  static void destroy(cudaStream_t s) { (void)cudaStreamDestroy(s); }
};
struct EventTraits {
  static void destroy(cudaEvent_t e) { (void)cudaEventDestroy(e); }
};
struct GraphTraits {
  static void destroy(cudaGraph_t g) { (void)cudaGraphDestroy(g); }
};
struct GraphExecTraits {
  static void destroy(cudaGraphExec_t g) { (void)cudaGraphExecDestroy(g); }
};
struct HostMemoryTraits {
  static void destroy(void* p) { (void)cudaFreeHost(p); }
};

// A non-blocking stream (no implicit synchronization with the legacy default stream).
class CudaStream : public CudaHandle<cudaStream_t, StreamTraits> {
 public:
  CudaStream() = default;
  static CudaStream create() {
    cudaStream_t s = nullptr;
    K25_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return CudaStream(s);
  }

 private:
  explicit CudaStream(cudaStream_t s) : CudaHandle(s) {}
};

// An event; timing events by default (cudaEventDisableTiming for pure ordering).
class CudaEvent : public CudaHandle<cudaEvent_t, EventTraits> {
 public:
  CudaEvent() = default;
  static CudaEvent create(unsigned flags = cudaEventDefault) {
    cudaEvent_t e = nullptr;
    K25_CUDA_CHECK(cudaEventCreateWithFlags(&e, flags));
    return CudaEvent(e);
  }

 private:
  explicit CudaEvent(cudaEvent_t e) : CudaHandle(e) {}
};

class CudaGraph : public CudaHandle<cudaGraph_t, GraphTraits> {
 public:
  CudaGraph() = default;
  explicit CudaGraph(cudaGraph_t g) : CudaHandle(g) {}
};

class CudaGraphExec : public CudaHandle<cudaGraphExec_t, GraphExecTraits> {
 public:
  CudaGraphExec() = default;
  static CudaGraphExec instantiate(cudaGraph_t graph) {
    cudaGraphExec_t exec = nullptr;
    K25_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    return CudaGraphExec(exec);
  }

 private:
  explicit CudaGraphExec(cudaGraphExec_t g) : CudaHandle(g) {}
};

// Device memory of `bytes` bytes: from cudaMalloc (256-byte aligned; a zero-byte request still yields a valid
// pointer), or adopted from another allocator with the function that frees it (ncclMemAlloc's ncclMemFree).
class DeviceBuffer {
 public:
  using Free = void (*)(void*);
  DeviceBuffer() = default;
  static DeviceBuffer allocate(std::size_t bytes) {
    void* p = nullptr;
    K25_CUDA_CHECK(cudaMalloc(&p, bytes == 0 ? 256 : bytes));
    return DeviceBuffer(p, bytes, [](void* q) { (void)cudaFree(q); });
  }
  static DeviceBuffer adopt(void* p, std::size_t bytes, Free free) { return DeviceBuffer(p, bytes, free); }

  template <typename T = void>
  T* get() const {
    return static_cast<T*>(memory_.get());
  }
  std::size_t bytes() const { return bytes_; }
  void* release() {
    bytes_ = 0;
    return memory_.release();
  }

 private:
  DeviceBuffer(void* p, std::size_t bytes, Free free) : memory_(p, free), bytes_(bytes) {}
  std::unique_ptr<void, Free> memory_{nullptr, nullptr};  // moves, and frees with the allocator's function
  std::size_t bytes_ = 0;
};

// Page-locked host memory, mapped into the device address space (cudaHostAllocMapped) so kernels can poll it.
class PinnedHostBuffer {
 public:
  PinnedHostBuffer() = default;
  static PinnedHostBuffer allocate(std::size_t bytes) {
    void* p = nullptr;
    K25_CUDA_CHECK(cudaHostAlloc(&p, bytes == 0 ? 64 : bytes, cudaHostAllocMapped | cudaHostAllocPortable));
    return PinnedHostBuffer(p, bytes);
  }
  template <typename T = void>
  T* host() const {
    return static_cast<T*>(memory_.get());
  }
  template <typename T = void>
  T* device() const {
    void* d = nullptr;
    K25_CUDA_CHECK(cudaHostGetDevicePointer(&d, memory_.get(), 0));
    return static_cast<T*>(d);
  }
  void* release() { return memory_.release(); }

 private:
  PinnedHostBuffer(void* p, std::size_t bytes) : memory_(p), bytes_(bytes) {}
  CudaHandle<void*, HostMemoryTraits> memory_;
  std::size_t bytes_ = 0;
};

}  // namespace k25::nccl
