// The table of config keys drives the loader, the effective config in report.json and the README's key list:
// each key is read, written and documented, and a config that goes through report.json loads back to the same
// run.
#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "config/config_keys.hpp"
#include "config/config_loader.hpp"
#include "config/config_writer.hpp"

namespace {

std::string read_text(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// The Markdown between the README's config-key markers.
std::string readme_key_list() {
  const std::string readme = read_text(std::string(K25_SOURCE_DIR) + "/README.md");
  const std::string begin = "<!-- config keys: generated from src/config/config_keys.cpp -->\n";
  const std::string end = "<!-- end of config keys -->";
  const auto from = readme.find(begin);
  const auto to = readme.find(end);
  if (from == std::string::npos || to == std::string::npos || to < from) return {};
  return readme.substr(from + begin.size(), to - from - begin.size());
}

}  // namespace

TEST_CASE("every config key has a section of the table and a unique name") {
  std::set<std::string> seen;
  for (const k25::ConfigKey& key : k25::config_keys()) {
    const std::string full = std::string(key.section) + "." + key.name;
    CHECK(seen.insert(full).second);
    CHECK(std::count(k25::config_sections().begin(), k25::config_sections().end(), key.section) == 1);
    CHECK(key.read != nullptr);
  }
}

TEST_CASE("the effective config writes every key but the API key, under its section") {
  const k25::RunConfig config = k25::load_config(std::string(K25_SOURCE_DIR) + "/configs/kimi.yaml");
  const nlohmann::json written = k25::config_to_json(config);
  std::size_t keys = 0;
  for (const k25::ConfigKey& key : k25::config_keys()) {
    const bool present = written.at(key.section).contains(key.name);
    CHECK(present == (key.write != nullptr));
    keys += present ? 1 : 0;
  }
  std::size_t json_keys = 0;
  for (const auto& [section, values] : written.items()) json_keys += values.size();
  CHECK(json_keys == keys);  // nothing written that the loader would not read back
  CHECK_FALSE(written.at("serve").contains("api_key"));
}

TEST_CASE("a config that went through report.json loads back to the same run") {
  for (const char* name : {"kimi.yaml", "smoke.yaml", "deepseek-v3.yaml"}) {
    k25::RunConfig config = k25::load_config(std::string(K25_SOURCE_DIR) + "/configs/" + name);
    config.transport.inject_delay = "1:5";  // test-only keys go through too
    config.transport.emulate_ranks = true;
    config.sweep.device_only = true;
    const nlohmann::json written = k25::config_to_json(config);
    const k25::RunConfig again = k25::parse_config(written.dump(2), "report.json");  // JSON is YAML
    CHECK(k25::config_to_json(again) == written);
    CHECK(again.sweep.allreduce_dtype == config.sweep.allreduce_dtype);
    CHECK(again.transport.inject_delay == "1:5");
  }
}

TEST_CASE("a config written as YAML loads back to the same run, sequence and comments included") {
  for (const char* name : {"kimi.yaml", "smoke-sequence.yaml", "kimi-vllm-tp8.yaml", "smoke-decode.yaml"}) {
    const k25::RunConfig config = k25::load_config(std::string(K25_SOURCE_DIR) + "/configs/" + name);
    const std::string yaml = k25::config_to_yaml(config, "first line\n\nthird line");
    CHECK(yaml.rfind("# first line\n#\n# third line\n\nmodel:\n", 0) == 0);
    const k25::RunConfig again = k25::parse_config(yaml, name);
    CHECK(k25::config_to_json(again) == k25::config_to_json(config));
    CHECK(again.model.sequence.size() == config.model.sequence.size());
  }
  // Sequence entries read as the README writes them: inline, kind and dtype first.
  const k25::RunConfig sequence =
      k25::load_config(std::string(K25_SOURCE_DIR) + "/configs/smoke-sequence.yaml");
  const std::string yaml = k25::config_to_yaml(sequence);
  CHECK(yaml.find("    - {kind: \"allreduce\", dtype: \"bf16\", bytes_per_token: 512, count: 1, name: "
                  "\"embedding\"}\n") != std::string::npos);
  CHECK(yaml.find("  tokens: [1, 4, 16]\n") != std::string::npos);
}

TEST_CASE("the README lists exactly the table's keys") {
  const std::string listed = readme_key_list();
  INFO("README.md's block between the config-key markers should read:\n" << k25::config_keys_markdown());
  CHECK(listed == k25::config_keys_markdown());
}

TEST_CASE("phase and mode lists are read the same way by YAML and flags") {
  k25::SweepSpec sweep;
  CHECK(k25::set_phases(sweep, {"alltoall", "serve"}).empty());
  CHECK_FALSE(sweep.run_allreduce);
  CHECK(k25::phase_names(sweep) == std::vector<std::string>{"alltoall", "serve"});
  CHECK(k25::set_phases(sweep, {"allreduce", "bogus"}) == "bogus");
  CHECK(k25::set_modes(sweep, {"graph"}).empty());
  CHECK(sweep.modes == std::vector<k25::TimingMode>{k25::TimingMode::graph});
  CHECK(k25::set_modes(sweep, {"graph", "decode?"}) == "decode?");
}
