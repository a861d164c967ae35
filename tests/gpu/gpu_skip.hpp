// Shared by the GPU tests: exit with ctest's skip code (77), saying why, where no CUDA device is visible.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>

namespace k25::gpu_test {

constexpr int skip_exit_code = 77;  // SKIP_RETURN_CODE of every test labelled gpu

inline void skip_without_device(const char* test) {
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc == cudaSuccess && count > 0) return;
  std::printf("SKIPPED %s: no CUDA device visible (cudaGetDeviceCount: %s, %d devices)\n", test,
              rc == cudaSuccess ? "ok" : cudaGetErrorString(rc), count);
  std::fflush(stdout);
  std::exit(skip_exit_code);
}

}  // namespace k25::gpu_test
