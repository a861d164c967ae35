// The main job: replay every point of the sweep on all ranks, gather on the coordinator, run the serve phase,
// and write the journal (as results arrive), report.json, report.md and trace.json.
#pragma once

#include "app/command_line.hpp"
#include "common/rank_context.hpp"
#include "config/run_config.hpp"
#include "transport/nccl_backend.hpp"

namespace k25 {

// Collective. Returns 0; throws k25 errors otherwise: UsageError before anything runs when nothing asked can
// be measured, MeasurementFailure (exit 1) for wrong elements, after every file is written.
// `nccl`: the NCCL backend main linked (nccl::nccl_backend() or absent_nccl_backend()).
int run_measure_command(const RunConfig& config, const CommandLine& cli, const RankContext& context,
                        const NcclBackend& nccl);

}  // namespace k25
