// Prints the number of visible CUDA devices (0 on any error) for the GPU test scripts; exit 77 where there is
// none.
#include <cuda_runtime_api.h>

#include <cstdio>

int main() {
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess) count = 0;
  std::printf("%d\n", count);
  if (count == 0)
    std::fprintf(stderr, "no CUDA device visible (cudaGetDeviceCount: %s)\n", cudaGetErrorString(rc));
  return count > 0 ? 0 : 77;
}
