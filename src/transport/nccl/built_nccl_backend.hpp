// The NCCL transport's entry in k25core's backend table (transport/nccl_backend.hpp): what a build with NCCL
// offers.
#pragma once

#include "transport/nccl_backend.hpp"

namespace k25::nccl {

// Built: places ranks on GPUs, makes NcclTransport, reads the local GPU through the CUDA runtime.
const NcclBackend& nccl_backend();

}  // namespace k25::nccl
