// --nccl-register's check against this run: the topology, the runtime NCCL and this process's environment.
#pragma once

#include "common/rank_context.hpp"
#include "config/run_config.hpp"
#include "topology/topology_info.hpp"

namespace k25 {

// Collective over context.world(), after the topology probe (whose full record only the coordinator holds):
// throws UsageError on every rank with the first rank's reason where config.transport.nccl_register cannot
// take effect (transport/registration_check.hpp). Nothing to check, and no communication, for none.
void check_registration(const RunConfig& config, const RankContext& context, const TopologyInfo& topology);

}  // namespace k25
