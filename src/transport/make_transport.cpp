// Chooses the transport for --backend auto|nccl|mpi and says why; wraps it for the test-only --inject-delay.
#include "transport/make_transport.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/first_problem.hpp"
#include "transport/delayed_arrival.hpp"
#include "transport/mpi_transport.hpp"

namespace k25 {
namespace {

ChosenTransport choose(const RunConfig& config, const RankContext& context, const NcclBackend& nccl) {
  const Backend backend = config.transport.backend;
  if (backend == Backend::mpi)
    return {std::make_unique<MpiTransport>(transport_options(config), context),
            "mpi: asked for with --backend mpi"};
  if (!nccl.built) {
    if (backend == Backend::nccl)
      throw UsageError(
          "--backend nccl: this k25comm was built without CUDA/NCCL (rebuild where both are found)");
    return {std::make_unique<MpiTransport>(transport_options(config), context),
            "mpi: auto, and the NCCL transport was not built"};
  }
  // Every rank must take the same transport: the first rank's problem (a host without a GPU for each of its
  // ranks) decides for all.
  const DevicePlacement placement = nccl.choose_device(context, config.transport.emulate_ranks);
  const std::string problem = first_problem(context.world(), placement.problem);
  if (!problem.empty()) {
    if (backend == Backend::nccl) throw UsageError(nccl_refusal(problem));
    return {std::make_unique<MpiTransport>(transport_options(config), context), "mpi: auto, and " + problem};
  }
  const std::string how = backend == Backend::nccl ? "asked for with --backend nccl" : "auto";
  const std::string where = config.transport.emulate_ranks
                                ? "emulated ranks: every rank on a visible GPU, several per GPU"
                                : "one GPU per rank";
  return {nccl.make(transport_options(config), context, placement.device),
          fmt::format("nccl: {} ({})", how, where)};
}

}  // namespace

TransportOptions transport_options(const RunConfig& config) {
  TransportOptions options;
  options.in_place = config.sweep.in_place;
  options.timeout_s = config.transport.timeout_s;
  options.emulate_ranks = config.transport.emulate_ranks;
  options.nccl_register = config.transport.nccl_register;
  return options;
}

ChosenTransport make_transport(const RunConfig& config, const RankContext& context, const NcclBackend& nccl) {
  ChosenTransport chosen = choose(config, context, nccl);
  // Registration is NCCL's: a run on the host transport would measure unregistered buffers under its name.
  if (const NcclRegister mode = config.transport.nccl_register;
      mode != NcclRegister::none && chosen.transport->name() != "nccl")
    throw UsageError(fmt::format(
        "--nccl-register {}: NCCL buffer registration needs the nccl transport, and this run took {}; run on GPUs with --backend nccl, or leave --nccl-register at none",
        to_string(mode), chosen.reason));
  if (const auto delay = parse_delay_spec(config.transport.inject_delay);
      delay && delay->rank == context.rank())
    chosen.transport = std::make_unique<DelayedArrival>(std::move(chosen.transport), delay->microseconds);
  return chosen;
}

}  // namespace k25
