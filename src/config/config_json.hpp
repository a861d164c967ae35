// The effective config (after flags) as JSON, for report.json `run.config`. The API key is never written out.
#pragma once

#include <nlohmann/json.hpp>

#include "config/run_config.hpp"

namespace k25 {

nlohmann::json config_to_json(const RunConfig& config);

}  // namespace k25
