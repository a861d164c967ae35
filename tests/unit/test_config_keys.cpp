// The table of config keys drives the loader, the effective config in report.json and the README's key list:
// each key is read, written and documented, and a config that goes through report.json loads back to the same
// run.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include "app/command_line.hpp"
#include "common/error.hpp"
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

// What `call` wrote to file descriptor `fd` (stdout or stderr).
template <typename Call>
std::string captured_output(int fd, Call call) {
  std::fflush(nullptr);
  std::cout.flush();
  std::FILE* sink = std::tmpfile();
  const int saved = ::dup(fd);
  ::dup2(::fileno(sink), fd);
  call();
  std::fflush(nullptr);
  std::cout.flush();
  ::dup2(saved, fd);
  ::close(saved);
  std::rewind(sink);
  std::string text;
  for (int ch; (ch = std::fgetc(sink)) != EOF;) text += static_cast<char>(ch);
  std::fclose(sink);
  return text;
}

// parse_command_line of `args` (printing as rank 0 does).
k25::CommandLine parse(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  return k25::parse_command_line(static_cast<int>(args.size()), argv.data(), true);
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

namespace {

// The cells of one Markdown table line, split at unescaped pipes, each trimmed and unescaped ("\|" -> "|").
std::vector<std::string> markdown_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cell += '|';
      ++i;
    } else if (line[i] == '|') {
      cells.push_back(cell);
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  cells.push_back(cell);
  for (std::string& c : cells) {
    c.erase(0, c.find_first_not_of(' '));
    c.erase(c.find_last_not_of(' ') + 1);
  }
  // "| a | b |": the text before the first pipe and after the last is not a cell.
  if (!cells.empty() && cells.front().empty()) cells.erase(cells.begin());
  if (!cells.empty() && cells.back().empty()) cells.pop_back();
  return cells;
}

}  // namespace

TEST_CASE("the README's key list is a Markdown table whose every row has its columns") {
  std::istringstream lines(readme_key_list());
  std::vector<std::vector<std::string>> table;
  for (std::string line; std::getline(lines, line);) table.push_back(markdown_cells(line));
  REQUIRE(table.size() == k25::config_keys().size() + 2);  // heading, rule, one line per key
  CHECK(table[0] == std::vector<std::string>{"key", "flag", "value", "meaning"});
  CHECK(table[1] == std::vector<std::string>{"---", "---", "---", "---"});
  std::size_t i = 2;
  for (const k25::ConfigKey& key : k25::config_keys()) {
    INFO("README line of " << key.path());
    const std::vector<std::string>& cells = table[i++];
    REQUIRE(cells.size() == 4);
    CHECK(cells[0].rfind("`" + key.path() + "`", 0) == 0);
    if (key.flag == nullptr)
      CHECK(cells[1] == "-");
    else
      CHECK(cells[1].rfind(std::string("`") + key.flag + "`", 0) == 0);
    CHECK(cells[2] == key.value.type_text());  // "bf16 | fp32" stays one cell
    CHECK(cells[3] == key.meaning);
  }
}

TEST_CASE("phase and mode lists come from their enumerations' name tables") {
  k25::SweepSpec sweep;
  k25::set_phases(sweep, {k25::SweepPhase::alltoall, k25::SweepPhase::serve});
  CHECK_FALSE(sweep.run_allreduce);
  CHECK(k25::phase_names(sweep) == std::vector<std::string>{"alltoall", "serve"});
  for (const char* path : {"sweep.phases", "sweep.modes", "transport.backend", "transport.nccl_register"}) {
    const auto key = std::find_if(k25::config_keys().begin(), k25::config_keys().end(),
                                  [&](const k25::ConfigKey& k) { return k.path() == path; });
    REQUIRE(key != k25::config_keys().end());
    CHECK_FALSE(key->value.names.empty());
  }
  CHECK(k25::config_key_of_flag("--modes")->value.names == k25::enum_names<k25::TimingMode>());
  CHECK(k25::config_key_of_flag("--phases")->value.names == k25::enum_names<k25::SweepPhase>());
  CHECK(k25::config_key_of_flag("--nccl-register")->value.names == k25::enum_names<k25::NcclRegister>());
  CHECK(k25::config_key_of_flag("--nccl-register")->value.type_text() == "none | local | symmetric");
}

namespace {

const std::string kModel =
    "model:\n  name: tiny\n  hidden_size: 256\n  num_layers: 4\n  routed_experts: 16\n  experts_per_token: "
    "4\n";

// What a value did: exit code 0 and the effective config, or the exit code and the reason (the message
// without where the value came from).
struct Outcome {
  int code = 0;
  std::string reason;
  nlohmann::json config;
  std::string api_key;
  bool operator==(const Outcome&) const = default;
};

std::ostream& operator<<(std::ostream& out, const Outcome& o) {
  return out << "exit " << o.code << (o.code ? ": " + o.reason : ": " + o.config.dump());
}

Outcome yaml_outcome(const k25::ConfigKey& key, const std::string& value) {
  const std::string yaml = kModel +
                           (std::string(key.section) == "model" ? "" : std::string(key.section) + ":\n") +
                           "  " + key.name + ": " + value + "\n";
  try {
    const k25::RunConfig config = k25::parse_config(yaml, "twin.yaml");
    return {0, "", k25::config_to_json(config), config.serve.api_key};
  } catch (const k25::ConfigError& e) {
    const std::string what = e.what();
    const std::string after = key.path() + ": ";
    return {static_cast<int>(e.code()), what.substr(what.find(after) + after.size())};
  }
}

Outcome flag_outcome(const k25::ConfigKey& key, const std::optional<std::string>& text) {
  std::vector<std::string> args = {"k25comm", "--sizes", "twin.yaml", key.flag};
  if (text) args.push_back(*text);
  k25::CommandLine cli;
  const std::string printed = captured_output(STDERR_FILENO, [&] { cli = parse(args); });
  if (cli.command == k25::Command::exit_now) {
    const std::string lead = std::string("k25comm: error: ") + key.flag + ": ";
    const std::string line = printed.substr(0, printed.find('\n'));
    return {cli.exit_code, line.rfind(lead, 0) == 0 ? line.substr(lead.size()) : "(unexpected) " + line};
  }
  k25::RunConfig config = k25::parse_config(kModel, "twin.yaml");
  k25::apply_command_line(cli, config);
  return {0, "", k25::config_to_json(config), config.serve.api_key};
}

// A value of the key's type: on the command line, and in YAML.
struct Probe {
  std::string flag_text, yaml_text;
  bool past_limit = false;
};

std::string text_of(double value) {
  return fmt::format("{}", value);
}

// Values at the key's limits and past them, derived from its ValueSpec.
std::vector<Probe> probes(const k25::ConfigKey& key) {
  using Kind = k25::ValueSpec::Kind;
  const k25::ValueSpec& v = key.value;
  const auto list = [](const std::vector<std::string>& items, bool past) {
    std::string flag, yaml;
    for (const std::string& item : items) {
      flag += (flag.empty() ? "" : ",") + item;
      yaml += (yaml.empty() ? "" : ", ") + item;
    }
    return Probe{flag, "[" + yaml + "]", past};
  };
  const auto below = [&] { return v.min == 0 ? -0.001 : v.min / 2; };
  const auto above = [&] { return v.max == 0 ? 1.0 : v.max * 2; };
  switch (v.kind) {
    case Kind::integer:
      return {{text_of(v.min), text_of(v.min)},
              {text_of(v.max), text_of(v.max)},
              {text_of(v.min - 1), text_of(v.min - 1), true},
              {text_of(v.max + 1), text_of(v.max + 1), true},
              {"1.5", "1.5", true},
              {"many", "many", true}};
    case Kind::unsigned_integer:
      return {
          {"0", "0"}, {"18446744073709551615", "18446744073709551615"}, {"-1", "-1", true}, {"x", "x", true}};
    case Kind::number:
      return {{text_of(v.min), text_of(v.min)},
              {text_of(v.max), text_of(v.max)},
              {text_of(below()), text_of(below()), true},
              {text_of(above()), text_of(above()), true},
              {"fast", "fast", true}};
    case Kind::integer_list:
    case Kind::number_list: {
      std::vector<Probe> all = {
          list({text_of(v.min), text_of(v.max)}, false),
          list({text_of(v.kind == Kind::integer_list ? v.min - 1 : below())}, true),
          list({text_of(v.max), text_of(v.kind == Kind::integer_list ? v.max + 1 : above())}, true),
          list({text_of(v.min), "x"}, true)};
      if (v.ascending) all.push_back(list({text_of(v.max), text_of(v.min)}, true));
      return all;
    }
    case Kind::choice:
    case Kind::choice_list: {
      std::vector<Probe> all;
      for (const std::string& name : v.names)
        all.push_back(v.kind == Kind::choice ? Probe{name, name} : list({name}, false));
      all.push_back(v.kind == Kind::choice ? Probe{"bogus", "bogus", true}
                                           : list({v.names.front(), "bogus"}, true));
      if (v.kind == Kind::choice_list) all.push_back(list(v.names, false));
      return all;
    }
    case Kind::boolean:
    case Kind::text:
      return {{"some:text", "some:text"}};
    case Kind::structured: {  // its own reader refuses free text; a flag that stands alone takes its value
      std::vector<Probe> all = {{"some:text", "some:text", true}};
      if (key.bare_value != nullptr) all.push_back({key.bare_value, key.bare_value});
      return all;
    }
  }
  return {};
}

}  // namespace

TEST_CASE("every flag gives the same answer as its YAML twin, at its limits and past them") {
  int flags = 0, refused = 0;
  for (const k25::ConfigKey& key : k25::config_keys()) {
    if (key.flag == nullptr) continue;
    ++flags;
    if (key.flag_kind != k25::FlagKind::value) {  // a switch: one value, the one it sets
      INFO(key.flag << " against " << key.path());
      CHECK(flag_outcome(key, std::nullopt) ==
            yaml_outcome(key, key.flag_kind == k25::FlagKind::sets_true ? "true" : "false"));
      continue;
    }
    for (const Probe& probe : probes(key)) {
      INFO(key.flag << " " << probe.flag_text << " against " << key.path() << ": " << probe.yaml_text);
      const Outcome yaml = yaml_outcome(key, probe.yaml_text);
      const Outcome flag = flag_outcome(key, probe.flag_text);
      CHECK(flag == yaml);
      CHECK((yaml.code == 2) == probe.past_limit);
      refused += yaml.code == 2 ? 1 : 0;
    }
  }
  CHECK(flags >= 35);
  CHECK(refused >= 60);
  // The cases the issue found: flags that were looser than their YAML twins.
  const k25::ConfigKey& timeout = *k25::config_key_of_flag("--timeout");
  CHECK(flag_outcome(timeout, "0.01").reason == "0.01 is outside 0.1..86400");
  CHECK(flag_outcome(*k25::config_key_of_flag("--iters"), "20000000").reason ==
        "20000000 is outside 1..10000000");
  CHECK(flag_outcome(*k25::config_key_of_flag("--time-budget"), "0.0001").reason ==
        "0.0001 is outside 0.001..1000000");
}

TEST_CASE("every list in a help text comes from the table it lists") {
  k25::CommandLine cli;
  const std::string help = captured_output(STDOUT_FILENO, [&] { cli = parse({"k25comm", "--help"}); });
  CHECK(cli.exit_code == 0);
  for (const k25::ConfigKey& key : k25::config_keys()) {
    if (key.flag == nullptr || key.listing == k25::FlagListing::hidden) continue;
    INFO(key.flag);
    CHECK(help.find(std::string(key.flag) + " " +
                    (key.flag_kind == k25::FlagKind::value ? key.value.flag_value_name() : "")) !=
          std::string::npos);
    CHECK(help.find(key.meaning) != std::string::npos);
  }
  CHECK(help.find("--phases LIST of allreduce|alltoall|serve") != std::string::npos);
  CHECK(help.find("--modes LIST of eager|graph|decode") != std::string::npos);

  const std::string compare_help = captured_output(STDOUT_FILENO, [&] {
    cli = parse({"k25comm", "compare", "--help"});
  });
  std::vector<std::string> fields;
  for (const k25::SetupField& field : k25::setup_fields()) fields.push_back(field.name);
  CHECK(compare_help.find(k25::join_names(fields, "|")) != std::string::npos);
  CHECK(compare_help.find("text|csv|json") != std::string::npos);
  // A subcommand's help ends with its own options, not with the measuring command's default-config search.
  CHECK(compare_help.find("Without --sizes") == std::string::npos);
  CHECK(help.find("Without --sizes") != std::string::npos);
}

TEST_CASE("a mistyped flag or command gets one line naming the nearest") {
  k25::CommandLine cli;
  std::string said = captured_output(STDERR_FILENO, [&] { cli = parse({"k25comm", "--iter", "5"}); });
  CHECK(cli.exit_code == 2);
  CHECK(said == "k25comm: error: unknown flag --iter; did you mean --iters?\n");
  said = captured_output(STDERR_FILENO, [&] { cli = parse({"k25comm", "comapre", "a", "b"}); });
  CHECK(cli.exit_code == 2);
  CHECK(said == "k25comm: error: unknown command 'comapre'; did you mean compare?\n");
  said = captured_output(STDERR_FILENO, [&] {
    cli = parse({"k25comm", "compare", "a", "b", "--treshold", "3"});
  });
  CHECK(said == "k25comm: error: unknown flag --treshold for compare; did you mean --threshold?\n");
  said = captured_output(STDERR_FILENO, [&] { cli = parse({"k25comm", "--bogus"}); });
  CHECK(said == "k25comm: error: unknown flag --bogus (k25comm --help lists the flags)\n");
  CHECK(k25::nearest_name("--iters", {"--iters", "--warmup"}) == "--iters");
  CHECK(k25::nearest_name("xyz", {"compare", "report", "capture"}).empty());
}
