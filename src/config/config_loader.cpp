// YAML -> RunConfig: strict keys and types, ranges checked, line numbers kept for messages.
#include "config/config_loader.hpp"

#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "common/error.hpp"

namespace k25 {
namespace {

int line_of(const YAML::Node& node) {
  return node.Mark().line >= 0 ? node.Mark().line + 1 : 0;
}

// Reads typed values out of one YAML document, throwing ConfigError that names the file, line and key path.
class ConfigReader {
 public:
  ConfigReader(std::string path, std::map<std::string, int>& key_lines)
      : path_(std::move(path)), lines_(key_lines) {}

  [[noreturn]] void fail(const YAML::Node& node, const std::string& key, const std::string& why) const {
    throw ConfigError(path_, line_of(node), key, why);
  }

  // Checks that `map` is a mapping whose keys all belong to `allowed`; records each key's line.
  void expect_map(const YAML::Node& map, const std::string& where, const std::set<std::string>& allowed) {
    if (!map.IsMap()) fail(map, where, "expected a mapping of keys");
    for (const auto& entry : map) {
      if (!entry.first.IsScalar()) fail(entry.first, where, "a key must be a plain name");
      const auto key = entry.first.as<std::string>();
      const std::string path = where.empty() ? key : where + "." + key;
      if (!allowed.contains(key)) {
        std::string known;
        for (const auto& name : allowed) known += (known.empty() ? "" : ", ") + name;
        fail(entry.first, path, fmt::format("unknown key (known keys here: {})", known));
      }
      lines_[path] = line_of(entry.first);
    }
  }

  template <typename T>
  T scalar(const YAML::Node& node, const std::string& key, const char* type_name) const {
    if (!node.IsScalar()) fail(node, key, fmt::format("expected {}", type_name));
    try {
      return node.as<T>();
    } catch (const YAML::BadConversion&) {
      fail(node, key, fmt::format("expected {}, got '{}'", type_name, node.Scalar()));
    }
  }

  int integer(const YAML::Node& node, const std::string& key, long long min, long long max) const {
    const auto value = scalar<long long>(node, key, "an integer");
    if (value < min || value > max) fail(node, key, fmt::format("{} is outside {}..{}", value, min, max));
    return static_cast<int>(value);
  }

  double number(const YAML::Node& node, const std::string& key, double min, double max) const {
    const auto value = scalar<double>(node, key, "a number");
    if (!(value >= min && value <= max))
      fail(node, key, fmt::format("{} is outside {}..{}", value, min, max));
    return value;
  }

  bool boolean(const YAML::Node& node, const std::string& key) const {
    return scalar<bool>(node, key, "true or false");
  }

  std::string text(const YAML::Node& node, const std::string& key) const {
    return scalar<std::string>(node, key, "a string");
  }

  template <typename E>
  E choice(const YAML::Node& node, const std::string& key, const std::map<std::string, E>& options) const {
    const std::string value = text(node, key);
    const auto found = options.find(value);
    if (found == options.end()) {
      std::string names;
      for (const auto& [name, _] : options) names += (names.empty() ? "" : ", ") + name;
      fail(node, key, fmt::format("'{}' is not one of: {}", value, names));
    }
    return found->second;
  }

  std::vector<int> integer_list(const YAML::Node& node, const std::string& key, long long min,
                                long long max) const {
    if (!node.IsSequence() || node.size() == 0) fail(node, key, "expected a non-empty list of integers");
    std::vector<int> values;
    for (std::size_t i = 0; i < node.size(); ++i) values.push_back(integer(node[i], key, min, max));
    return values;
  }

  std::vector<std::string> text_list(const YAML::Node& node, const std::string& key) const {
    if (!node.IsSequence() || node.size() == 0) fail(node, key, "expected a non-empty list");
    std::vector<std::string> values;
    for (std::size_t i = 0; i < node.size(); ++i) values.push_back(text(node[i], key));
    return values;
  }

  // Calls `read` with the child node when `map` has `key`.
  void optional(const YAML::Node& map, const std::string& key,
                const std::function<void(const YAML::Node&)>& read) {
    if (const YAML::Node child = map[key]; child) read(child);
  }
  void required(const YAML::Node& map, const std::string& where, const std::string& key,
                const std::function<void(const YAML::Node&)>& read) {
    const YAML::Node child = map[key];
    if (!child) fail(map, where + "." + key, "required key is missing");
    read(child);
  }

 private:
  std::string path_;
  std::map<std::string, int>& lines_;
};

const std::map<std::string, Dtype> kActivationDtypes = {{"bf16", Dtype::bf16}, {"fp32", Dtype::fp32}};
const std::map<std::string, Dtype> kDispatchDtypes = {{"bf16", Dtype::bf16}, {"fp8", Dtype::fp8}};

void read_model(ConfigReader& in, const YAML::Node& node, ModelSpec& m) {
  in.expect_map(node, "model",
                {"name", "hidden_size", "num_layers", "dense_layers", "routed_experts", "experts_per_token",
                 "shared_experts", "activation_dtype", "allreduces_per_layer", "embedding_allreduce",
                 "dispatch_dtype", "combine_dtype", "fp8_scale_block", "dispatch_header_bytes"});
  in.required(node, "model", "name", [&](auto& n) { m.name = in.text(n, "model.name"); });
  in.required(node, "model", "hidden_size",
              [&](auto& n) { m.hidden_size = in.integer(n, "model.hidden_size", 1, 1 << 20); });
  in.required(node, "model", "num_layers",
              [&](auto& n) { m.num_layers = in.integer(n, "model.num_layers", 1, 4096); });
  in.optional(node, "dense_layers",
              [&](auto& n) { m.dense_layers = in.integer(n, "model.dense_layers", 0, 4096); });
  in.required(node, "model", "routed_experts",
              [&](auto& n) { m.routed_experts = in.integer(n, "model.routed_experts", 1, 1 << 16); });
  in.required(node, "model", "experts_per_token",
              [&](auto& n) { m.experts_per_token = in.integer(n, "model.experts_per_token", 1, 1 << 16); });
  in.optional(node, "shared_experts",
              [&](auto& n) { m.shared_experts = in.integer(n, "model.shared_experts", 0, 64); });
  in.optional(node, "activation_dtype", [&](auto& n) {
    m.activation_dtype = in.choice(n, "model.activation_dtype", kActivationDtypes);
  });
  in.optional(node, "allreduces_per_layer",
              [&](auto& n) { m.allreduces_per_layer = in.integer(n, "model.allreduces_per_layer", 0, 64); });
  in.optional(node, "embedding_allreduce",
              [&](auto& n) { m.embedding_allreduce = in.boolean(n, "model.embedding_allreduce"); });
  in.optional(node, "dispatch_dtype",
              [&](auto& n) { m.dispatch_dtype = in.choice(n, "model.dispatch_dtype", kDispatchDtypes); });
  in.optional(node, "combine_dtype",
              [&](auto& n) { m.combine_dtype = in.choice(n, "model.combine_dtype", kActivationDtypes); });
  in.optional(node, "fp8_scale_block",
              [&](auto& n) { m.fp8_scale_block = in.integer(n, "model.fp8_scale_block", 1, 1 << 16); });
  in.optional(node, "dispatch_header_bytes", [&](auto& n) {
    m.dispatch_header_bytes = in.integer(n, "model.dispatch_header_bytes", 0, 4096);
  });
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

void read_routing(ConfigReader& in, const YAML::Node& node, RoutingSpec& r) {
  in.expect_map(node, "routing", {"model", "zipf_s", "copies", "seed"});
  in.optional(node, "model", [&](auto& n) {
    r.model = in.choice(n, "routing.model",
                        std::map<std::string, RoutingModel>{{"uniform", RoutingModel::uniform},
                                                            {"zipf", RoutingModel::zipf}});
  });
  in.optional(node, "zipf_s", [&](auto& n) { r.zipf_s = in.number(n, "routing.zipf_s", 0.0, 10.0); });
  in.optional(node, "copies", [&](auto& n) {
    r.copies = in.choice(n, "routing.copies",
                         std::map<std::string, CopyGranularity>{{"per_rank", CopyGranularity::per_rank},
                                                                {"per_expert", CopyGranularity::per_expert}});
  });
  in.optional(node, "seed", [&](auto& n) {
    r.seed = in.scalar<std::uint64_t>(n, "routing.seed", "a non-negative integer");
  });
}

void read_sweep(ConfigReader& in, const YAML::Node& node, SweepSpec& s) {
  in.expect_map(
      node, "sweep",
      {"tokens", "phases", "modes", "allreduce_dtype", "in_place", "warmup", "iterations", "min_iterations",
       "op_iterations", "time_budget_s", "check", "include_permute", "device_only"});
  in.optional(node, "tokens", [&](auto& n) { s.tokens = in.integer_list(n, "sweep.tokens", 1, 65536); });
  in.optional(node, "phases", [&](auto& n) {
    s.run_allreduce = s.run_alltoall = s.run_serve = false;
    for (const auto& phase : in.text_list(n, "sweep.phases")) {
      if (phase == "allreduce")
        s.run_allreduce = true;
      else if (phase == "alltoall")
        s.run_alltoall = true;
      else if (phase == "serve")
        s.run_serve = true;
      else
        in.fail(n, "sweep.phases", fmt::format("'{}' is not one of: allreduce, alltoall, serve", phase));
    }
  });
  in.optional(node, "modes", [&](auto& n) {
    s.modes.clear();
    for (const auto& mode : in.text_list(n, "sweep.modes")) {
      if (mode == "eager")
        s.modes.push_back(TimingMode::eager);
      else if (mode == "graph")
        s.modes.push_back(TimingMode::graph);
      else
        in.fail(n, "sweep.modes", fmt::format("'{}' is not one of: eager, graph", mode));
    }
  });
  in.optional(node, "allreduce_dtype",
              [&](auto& n) { s.allreduce_dtype = in.choice(n, "sweep.allreduce_dtype", kActivationDtypes); });
  in.optional(node, "in_place", [&](auto& n) { s.in_place = in.boolean(n, "sweep.in_place"); });
  in.optional(node, "warmup", [&](auto& n) { s.warmup = in.integer(n, "sweep.warmup", 1, 1000000); });
  in.optional(node, "iterations",
              [&](auto& n) { s.iterations = in.integer(n, "sweep.iterations", 1, 10000000); });
  in.optional(node, "min_iterations",
              [&](auto& n) { s.min_iterations = in.integer(n, "sweep.min_iterations", 1, 10000000); });
  in.optional(node, "op_iterations",
              [&](auto& n) { s.op_iterations = in.integer(n, "sweep.op_iterations", 0, 10000000); });
  in.optional(node, "time_budget_s",
              [&](auto& n) { s.time_budget_s = in.number(n, "sweep.time_budget_s", 1e-3, 1e6); });
  in.optional(node, "check", [&](auto& n) { s.check = in.boolean(n, "sweep.check"); });
  in.optional(node, "include_permute",
              [&](auto& n) { s.include_permute = in.boolean(n, "sweep.include_permute"); });
  in.optional(node, "device_only", [&](auto& n) { s.device_only = in.boolean(n, "sweep.device_only"); });
}

void read_transport(ConfigReader& in, const YAML::Node& node, TransportSpec& t) {
  in.expect_map(node, "transport", {"backend", "timeout_s"});
  in.optional(node, "backend", [&](auto& n) {
    t.backend = in.choice(n, "transport.backend",
                          std::map<std::string, Backend>{
                              {"auto", Backend::automatic}, {"nccl", Backend::nccl}, {"mpi", Backend::mpi}});
  });
  in.optional(node, "timeout_s",
              [&](auto& n) { t.timeout_s = in.number(n, "transport.timeout_s", 0.1, 86400); });
}

void read_serve(ConfigReader& in, const YAML::Node& node, ServeSpec& s) {
  in.expect_map(node, "serve",
                {"endpoint", "api", "model", "api_key", "concurrency", "requests", "warmup_requests",
                 "max_tokens", "prompt_tokens", "ignore_eos", "request_rate", "connect_timeout_s",
                 "idle_timeout_s", "request_timeout_s", "percentiles"});
  in.optional(node, "endpoint", [&](auto& n) { s.endpoint = in.text(n, "serve.endpoint"); });
  in.optional(node, "api", [&](auto& n) {
    s.api = in.choice(
        n, "serve.api",
        std::map<std::string, ServeApi>{{"chat", ServeApi::chat}, {"completions", ServeApi::completions}});
  });
  in.optional(node, "model", [&](auto& n) { s.model = in.text(n, "serve.model"); });
  in.optional(node, "api_key", [&](auto& n) { s.api_key = in.text(n, "serve.api_key"); });
  in.optional(node, "concurrency",
              [&](auto& n) { s.concurrency = in.integer_list(n, "serve.concurrency", 1, 4096); });
  in.optional(node, "requests", [&](auto& n) { s.requests = in.integer(n, "serve.requests", 0, 10000000); });
  in.optional(node, "warmup_requests",
              [&](auto& n) { s.warmup_requests = in.integer(n, "serve.warmup_requests", 0, 100000); });
  in.optional(node, "max_tokens",
              [&](auto& n) { s.max_tokens = in.integer(n, "serve.max_tokens", 1, 1 << 20); });
  in.optional(node, "prompt_tokens",
              [&](auto& n) { s.prompt_tokens = in.integer(n, "serve.prompt_tokens", 1, 1 << 22); });
  in.optional(node, "ignore_eos", [&](auto& n) { s.ignore_eos = in.boolean(n, "serve.ignore_eos"); });
  in.optional(node, "request_rate",
              [&](auto& n) { s.request_rate = in.number(n, "serve.request_rate", 0.0, 1e6); });
  in.optional(node, "connect_timeout_s",
              [&](auto& n) { s.connect_timeout_s = in.number(n, "serve.connect_timeout_s", 0.01, 3600); });
  in.optional(node, "idle_timeout_s",
              [&](auto& n) { s.idle_timeout_s = in.number(n, "serve.idle_timeout_s", 0.01, 86400); });
  in.optional(node, "request_timeout_s",
              [&](auto& n) { s.request_timeout_s = in.number(n, "serve.request_timeout_s", 0.01, 86400); });
  in.optional(node, "percentiles", [&](auto& n) {
    if (!n.IsSequence() || n.size() == 0)
      in.fail(n, "serve.percentiles", "expected a non-empty list of numbers");
    s.percentiles.clear();
    for (std::size_t i = 0; i < n.size(); ++i)
      s.percentiles.push_back(in.number(n[i], "serve.percentiles", 0.001, 100));
  });
}

void read_output(ConfigReader& in, const YAML::Node& node, OutputSpec& o) {
  in.expect_map(node, "output", {"dir", "trace"});
  in.optional(node, "dir", [&](auto& n) { o.dir = in.text(n, "output.dir"); });
  in.optional(node, "trace", [&](auto& n) { o.trace = in.boolean(n, "output.trace"); });
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
  ConfigReader in(path, config.key_lines);
  in.expect_map(root, "", {"model", "routing", "sweep", "transport", "serve", "output"});
  in.required(root, "(document)", "model", [&](auto& n) { read_model(in, n, config.model); });
  in.optional(root, "routing", [&](auto& n) { read_routing(in, n, config.routing); });
  in.optional(root, "sweep", [&](auto& n) { read_sweep(in, n, config.sweep); });
  in.optional(root, "transport", [&](auto& n) { read_transport(in, n, config.transport); });
  in.optional(root, "serve", [&](auto& n) { read_serve(in, n, config.serve); });
  in.optional(root, "output", [&](auto& n) { read_output(in, n, config.output); });
  if (!config.key_lines.contains("sweep.allreduce_dtype"))
    config.sweep.allreduce_dtype = config.model.activation_dtype;
  validate_config(config);
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

void validate_config(const RunConfig& config) {
  const auto fail = [&](const std::string& key, const std::string& why) {
    throw ConfigError(config.config_path.empty() ? "(command line)" : config.config_path,
                      line_for(config, key), key, why);
  };
  const SweepSpec& s = config.sweep;
  if (s.tokens.empty()) fail("sweep.tokens", "no token counts to measure");
  for (int tokens : s.tokens)
    if (tokens < 1 || tokens > 65536)
      fail("sweep.tokens", fmt::format("token count {} is outside 1..65536", tokens));
  if (s.modes.empty()) fail("sweep.modes", "no timing mode");
  if (s.warmup < 1)
    fail("sweep.warmup",
         fmt::format("{} warm-up bursts: at least 1 is needed, because the first ops of a point "
                     "connect NCCL's peers and load its kernels",
                     s.warmup));
  if (s.min_iterations > s.iterations)
    fail("sweep.min_iterations",
         fmt::format("{} is more than iterations {}", s.min_iterations, s.iterations));
  if (!s.run_allreduce && !s.run_alltoall && !s.run_serve) fail("sweep.phases", "no phase selected");
  for (int level : config.serve.concurrency)
    if (level < 1) fail("serve.concurrency", fmt::format("concurrency {} must be at least 1", level));
}

void validate_for_ranks(const RunConfig& config, int ranks) {
  if (!config.sweep.run_alltoall) return;
  if (config.model.routed_experts % ranks != 0)
    throw ConfigError(config.config_path, line_for(config, "model.routed_experts"), "model.routed_experts",
                      fmt::format("{} routed experts cannot be spread evenly over {} ranks",
                                  config.model.routed_experts, ranks));
}

}  // namespace k25
