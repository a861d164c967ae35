// Unit tests of `k25comm --version`'s text: CMake's CUDA architecture list in words, and the NCCL line where
// no NCCL is loaded (the unit tests link none).
#include <catch2/catch.hpp>

#include "app/version_text.hpp"
#include "build_info.hpp"

TEST_CASE("CUDA architectures read as device code and PTX") {
  using k25::cuda_architectures_text;
  CHECK(cuda_architectures_text("80-real;90-real;100-real;120") ==
        "device code sm_80, sm_90, sm_100, sm_120; PTX compute_120 (compiled at load on newer GPUs)");
  CHECK(cuda_architectures_text("90") ==
        "device code sm_90; PTX compute_90 (compiled at load on newer GPUs)");
  CHECK(cuda_architectures_text("90-virtual") == "PTX compute_90 (compiled at load on newer GPUs)");
  CHECK(cuda_architectures_text("native") == "CMake's 'native'");
  CHECK(cuda_architectures_text("") == "none (built without CUDA/NCCL)");
}

TEST_CASE("the version text names the build and, without a loaded NCCL, no NCCL transport") {
  CHECK(k25::loaded_nccl_version().empty());
  const std::string text = k25::version_text();
  CHECK(text.rfind(std::string("k25comm ") + k25::kVersion + " (", 0) == 0);
  CHECK(text.find("\nCUDA kernels: " + k25::cuda_architectures_text(k25::kCudaArchitectures) + "\n") !=
        std::string::npos);
  CHECK(text.substr(text.rfind('\n') + 1) == "NCCL: no NCCL transport");
}
