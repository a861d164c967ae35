// Reads a run config from YAML (yaml-cpp) and checks it. Every error names the file, line and key (exit 2).
#pragma once

#include <string>

#include "config/run_config.hpp"

namespace k25 {

// Loads and validates `path`. Throws ConfigError (file, line, key, reason) on a missing file, bad YAML,
// an unknown key, a wrong type, a missing required key or a value out of range.
RunConfig load_config(const std::string& path);

// Same, from YAML text already read; `path` names it in messages.
RunConfig parse_config(const std::string& yaml_text, const std::string& path);

// Checks what depends on the number of ranks (experts divisible by ranks when All-to-All runs).
void validate_for_ranks(const RunConfig& config, int ranks);

// serve.profile names only levels serve.concurrency runs: throws UsageError naming the first that it does
// not.
void validate_profile_levels(const RunConfig& config);

}  // namespace k25
