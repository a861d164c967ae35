// A run config as a YAML file a person reads and k25comm loads back: every key the effective config writes
// (config_to_json), in the table's sections and order, through yaml-cpp's emitter.
#pragma once

#include <string>

#include "config/run_config.hpp"

namespace k25 {

// YAML of every written key of `config` (serve.api_key is never written). Lists of scalars and the entries of
// model.sequence are written inline ("[1, 2, 4]", "{kind: allreduce, ...}"); `header` lines go first as
// comments ("# " is added to each). parse_config() of the result gives the same config_to_json().
std::string config_to_yaml(const RunConfig& config, const std::string& header = {});

}  // namespace k25
