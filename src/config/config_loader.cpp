// YAML -> RunConfig, driven by the table of config keys: strict keys and types, ranges checked, line numbers
// kept for messages.
#include "config/config_loader.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "common/error.hpp"
#include "config/config_keys.hpp"
#include "config/config_reader.hpp"

namespace k25 {
namespace {

// Checks that `map` is a mapping whose keys all belong to `section` of the table (the root: to the sections),
// each once; records each key's line.
void expect_known_keys(const ConfigReader& in, const YAML::Node& map, const std::string& section,
                       const std::vector<std::string>& known, std::map<std::string, int>& key_lines) {
  const std::string where = section.empty() ? "(document)" : section;
  if (!map.IsMap()) in.fail(map, where, "expected a mapping of keys");
  for (const auto& entry : map) {
    if (!entry.first.IsScalar()) in.fail(entry.first, where, "a key must be a plain name");
    const auto key = entry.first.as<std::string>();
    const std::string path = section.empty() ? key : section + "." + key;
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::vector<std::string> sorted = known;
      std::sort(sorted.begin(), sorted.end());
      std::string list;
      for (const auto& name : sorted) list += (list.empty() ? "" : ", ") + name;
      in.fail(entry.first, path, fmt::format("unknown key (known keys here: {})", list));
    }
    // yaml-cpp keeps both entries of a repeated key and finds the first: the second would be ignored.
    if (const auto first = key_lines.find(path); first != key_lines.end())
      in.fail(entry.first, path, fmt::format("given twice (first on line {})", first->second));
    key_lines[path] = line_of(entry.first);
  }
}

// Checks between keys of the model section, once all are read.
void check_model(const ConfigReader& in, const YAML::Node& node, const ModelSpec& m) {
  if (m.dense_layers > m.num_layers)
    in.fail(node["dense_layers"], "model.dense_layers",
            fmt::format("{} dense layers but only {} layers", m.dense_layers, m.num_layers));
  if (m.experts_per_token > m.routed_experts)
    in.fail(
        node["experts_per_token"], "model.experts_per_token",
        fmt::format("top-k {} is larger than the {} routed experts", m.experts_per_token, m.routed_experts));
  if (m.dispatch_dtype == Dtype::fp8 && m.hidden_size % m.fp8_scale_block != 0)
    in.fail(node["hidden_size"], "model.hidden_size",
            fmt::format("{} is not a multiple of fp8_scale_block {}", m.hidden_size, m.fp8_scale_block));
}

}  // namespace

RunConfig parse_config(const std::string& yaml_text, const std::string& path) {
  RunConfig config;
  config.config_path = path;
  config.config_text = yaml_text;
  config.sweep.tokens = {1, 2, 4, 8, 16, 32, 64, 128, 256};
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::ParserException& e) {
    throw ConfigError(path, e.mark.line >= 0 ? e.mark.line + 1 : 0, "(document)", "not valid YAML: " + e.msg);
  }
  if (!root || root.IsNull()) throw ConfigError(path, 0, "(document)", "the file is empty");
  const ConfigReader in(path);
  expect_known_keys(in, root, "", config_sections(), config.key_lines);
  if (!root["model"]) in.fail(root, "(document).model", "required key is missing");
  for (const std::string& section : config_sections()) {
    const YAML::Node map = root[section];
    if (!map) continue;
    std::vector<std::string> names;
    for (const ConfigKey& key : config_keys())
      if (key.section == section) names.push_back(key.name);
    expect_known_keys(in, map, section, names, config.key_lines);
    for (const ConfigKey& key : config_keys()) {
      if (key.section != section) continue;
      const std::string full = section + "." + key.name;
      if (const YAML::Node value = map[key.name]; value) {
        key.read(in, value, full, config);
      } else if (key.required) {
        in.fail(map, full, "required key is missing");
      }
    }
    if (section == "model") check_model(in, map, config.model);
  }
  if (!config.key_lines.contains("sweep.allreduce_dtype"))
    config.sweep.allreduce_dtype = config.model.activation_dtype;
  return config;
}

RunConfig load_config(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw ConfigError(path, 0, "(file)", "cannot open the config file (missing or unreadable)");
  std::stringstream text;
  text << file.rdbuf();
  if (file.bad()) throw ConfigError(path, 0, "(file)", "cannot read the config file");
  return parse_config(text.str(), path);
}

namespace {
int line_for(const RunConfig& config, const std::string& key) {
  const auto found = config.key_lines.find(key);
  return found == config.key_lines.end() ? 0 : found->second;
}
}  // namespace

void validate_for_ranks(const RunConfig& config, int ranks) {
  // Only the All-to-Allv of copies places experts on ranks; AllGather + ReduceScatter move every rank's
  // tokens.
  if (!config.sweep.run_alltoall || config.model.ep_backend != EpBackend::send_recv) return;
  if (config.model.routed_experts % ranks != 0)
    throw ConfigError(config.config_path, line_for(config, "model.routed_experts"), "model.routed_experts",
                      fmt::format("{} routed experts cannot be spread evenly over {} ranks",
                                  config.model.routed_experts, ranks));
}

void validate_profile_levels(const RunConfig& config) {
  const ServeSpec& serve = config.serve;
  for (const int level : serve.profile.levels) {
    if (std::find(serve.concurrency.begin(), serve.concurrency.end(), level) != serve.concurrency.end())
      continue;
    std::vector<std::string> run;
    for (const int c : serve.concurrency) run.push_back(std::to_string(c));
    throw UsageError(fmt::format(
        "serve.profile (--profile) names concurrency {}, which this run does not run (serve.concurrency / --concurrency: {}): profile levels that run, or add {} to --concurrency",
        level, join_names(run), level));
  }
}

}  // namespace k25
