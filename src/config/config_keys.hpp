// The one table of config keys: every key's section and name, its type and meaning (the README's key list),
// whether it is required, how it is read from YAML and how it is written into report.json's effective config.
// The loader, config_to_json and the README are driven by it; tests check that they agree.
#pragma once

#include <yaml-cpp/yaml.h>

#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config_reader.hpp"
#include "config/run_config.hpp"

namespace k25 {

struct ConfigKey {
  const char* section;  // "model", "routing", "sweep", "transport", "serve", "output"
  const char* name;     // "hidden_size"
  const char* type;     // for the README, e.g. "integer 1..1048576"
  const char* meaning;  // for the README: one line
  bool required = false;
  // Reads the key's YAML value into the config; `key` is "section.name" for messages.
  void (*read)(const ConfigReader& in, const YAML::Node& value, const std::string& key, RunConfig& config);
  // Its value in the effective config; nullptr for a key that is never written (serve.api_key).
  nlohmann::json (*write)(const RunConfig& config);
};

// Every key, grouped by section in the order of config_sections().
std::span<const ConfigKey> config_keys();
const std::vector<std::string>& config_sections();

// The effective config as report.json records it: every written key, under the names YAML uses, so that it
// loads back (JSON is YAML) to the same run.
nlohmann::json config_to_json(const RunConfig& config);

// The README's key list: a Markdown table of every key, its type and meaning.
std::string config_keys_markdown();

// sweep.phases / --phases (allreduce, alltoall, serve) and sweep.modes / --modes (eager, graph): set from
// names; the first unknown name is returned (empty when all are known).
std::string set_phases(SweepSpec& sweep, const std::vector<std::string>& names);
std::vector<std::string> phase_names(const SweepSpec& sweep);
std::string set_modes(SweepSpec& sweep, const std::vector<std::string>& names);

}  // namespace k25
