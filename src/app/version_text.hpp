// The text of `k25comm --version`: version and git revision, the CUDA architectures the kernels hold, and the
// NCCL library this process runs. version_text() itself is declared in the generated build_info.hpp.
#pragma once

#include <string>
#include <string_view>

namespace k25 {

// CMake's CUDA_ARCHITECTURES list in words: "80-real;90-real;120" -> "device code sm_80, sm_90, sm_120; PTX
// compute_120 (compiled at load on newer GPUs)"; "" -> "none (built without CUDA/NCCL)".
std::string cuda_architectures_text(std::string_view cmake_list);

// The NCCL this process loaded, from its ncclGetVersion ("2.28.9"), looked up at run time so that k25core
// needs no NCCL; "" where no NCCL is loaded (a build without the NCCL transport).
std::string loaded_nccl_version();

}  // namespace k25
