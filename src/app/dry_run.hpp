// --dry-run: writes plan.json and prints the plan of every token count (ops, bytes, All-to-All matrices); no
// MPI.
#pragma once

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "config/run_config.hpp"
#include "plan/decode_step_plan.hpp"

namespace k25 {

nlohmann::json plan_to_json(const DecodeStepPlan& plan);
// Where plan.json goes without --out: a folder of its own, never a measuring run's output folder (whose
// reports would then sit beside a plan of another config).
inline constexpr const char* kDefaultPlanDir = "k25comm-plan";

// Writes <plan_dir>/plan.json (main passes --out when given, else kDefaultPlanDir), then prints the plan for
// `ranks` ranks to `out`. Returns the exit code.
int run_dry_run(const RunConfig& config, int ranks, const std::string& plan_dir, std::FILE* out);

}  // namespace k25
