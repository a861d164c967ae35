// --dry-run: prints the plan of every token count (ops, bytes, All-to-All matrices) and writes plan.json; no
// MPI.
#pragma once

#include <cstdio>

#include <nlohmann/json.hpp>

#include "config/run_config.hpp"
#include "plan/decode_step_plan.hpp"

namespace k25 {

nlohmann::json plan_to_json(const DecodeStepPlan& plan);
// Prints the plan for `ranks` ranks to `out` and writes <output.dir>/plan.json. Returns the exit code.
int run_dry_run(const RunConfig& config, int ranks, std::FILE* out);

}  // namespace k25
