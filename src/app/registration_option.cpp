// Fills the registration facts from the topology and the environment and agrees on one answer over the ranks.
#include "app/registration_option.hpp"

#include <cstdlib>

#include "common/error.hpp"
#include "common/first_problem.hpp"
#include "transport/registration_check.hpp"

namespace k25 {
namespace {

std::optional<std::string> environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::optional<std::string>(value) : std::nullopt;
}

}  // namespace

void check_registration(const RunConfig& config, const RankContext& context, const TopologyInfo& topology) {
  const NcclRegister mode = config.transport.nccl_register;
  if (mode == NcclRegister::none) return;  // the same on every rank: the config is
  RegistrationFacts facts;
  facts.nccl_version = nccl_version_code(topology.nccl_version);
  facts.ranks = context.size();
  facts.hosts = context.host_count();
  facts.emulated = config.transport.emulate_ranks;
  // Other ranks label the run from their own GPU alone: only the coordinator's label describes every link.
  if (context.is_coordinator()) facts.topology_kind = topology.kind;
  facts.local_register_env = environment("NCCL_LOCAL_REGISTER");
  facts.win_enable_env = environment("NCCL_WIN_ENABLE");
  facts.cumem_enable_env = environment("NCCL_CUMEM_ENABLE");
  if (const std::string problem = first_problem(context.world(), registration_problem(mode, facts));
      !problem.empty())
    throw UsageError(problem);
}

}  // namespace k25
