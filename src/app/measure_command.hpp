// The main job: replay every point of the sweep on all ranks, gather on the coordinator, run the serve phase,
// and write the journal (as results arrive), report.json, report.md and trace.json.
#pragma once

#include "app/command_line.hpp"
#include "common/rank_context.hpp"
#include "config/run_config.hpp"

namespace k25 {

// Collective. Returns the exit code: 0, or 1 when any result had wrong elements; throws k25 errors otherwise.
int run_measure_command(const RunConfig& config, const CommandLine& cli, const RankContext& context);

}  // namespace k25
