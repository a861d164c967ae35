// What the NCCL side offers to the backend choice: whether it was built, how many CUDA devices are visible,
// and the constructor of the nccl transport. Implemented by src/transport/nccl/ when built, else by stubs.
#pragma once

#include <memory>

#include "common/rank_context.hpp"
#include "config/run_config.hpp"
#include "transport/transport.hpp"

namespace k25 {

bool nccl_transport_built();
int visible_cuda_devices();  // 0 where the runtime finds none (or was not built)
std::unique_ptr<Transport> make_nccl_transport(const RunConfig& config, const RankContext& context);

}  // namespace k25
