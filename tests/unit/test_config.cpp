// Config loading: the shipped configs, and every kind of bad input named with file, line and key (exit 2).
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "common/error.hpp"
#include "config/config_keys.hpp"
#include "config/config_loader.hpp"

using namespace k25;

namespace {

const std::string kMinimalModel = R"(model:
  name: tiny
  hidden_size: 256
  num_layers: 4
  dense_layers: 1
  routed_experts: 16
  experts_per_token: 4
)";

// Parses `text` and returns the ConfigError it must raise.
ConfigError config_error(const std::string& text) {
  try {
    parse_config(text, "bad.yaml");
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("expected a ConfigError for:\n" << text);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("configs/kimi.yaml holds Kimi-K2.5's shape", "[config]") {
  const RunConfig c = load_config(std::string(K25_SOURCE_DIR) + "/configs/kimi.yaml");
  CHECK(c.model.name == "Kimi-K2.5");
  CHECK(c.model.hidden_size == 7168);
  CHECK(c.model.num_layers == 61);
  CHECK(c.model.dense_layers == 1);
  CHECK(c.model.routed_experts == 384);
  CHECK(c.model.experts_per_token == 8);
  CHECK(c.model.shared_experts == 1);
  CHECK(c.model.activation_dtype == Dtype::bf16);
  CHECK(c.model.allreduces_per_layer == 2);
  CHECK(c.model.dispatch_dtype == Dtype::fp8);
  CHECK(c.model.combine_dtype == Dtype::bf16);
  CHECK(c.model.fp8_scale_block == 128);
  CHECK(c.sweep.tokens == std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128, 256});
  CHECK(c.sweep.allreduce_dtype == Dtype::bf16);
  CHECK(c.routing.seed == 42);
}

TEST_CASE("every shipped config loads", "[config]") {
  int loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(K25_SOURCE_DIR) + "/configs")) {
    if (entry.path().extension() != ".yaml") continue;
    INFO(entry.path());
    CHECK_NOTHROW(load_config(entry.path().string()));
    ++loaded;
  }
  CHECK(loaded >= 5);
}

TEST_CASE("a minimal config gets the documented defaults", "[config]") {
  const RunConfig c = parse_config(kMinimalModel, "min.yaml");
  CHECK(c.sweep.tokens == std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128, 256});
  CHECK(c.transport.backend == Backend::automatic);
  CHECK(c.transport.timeout_s == 60.0);
  CHECK(c.serve.endpoint.empty());
  CHECK(c.routing.model == RoutingModel::uniform);
}

TEST_CASE("a missing file is a ConfigError naming it", "[config]") {
  try {
    load_config("/nonexistent/k25.yaml");
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.code() == ExitCode::bad_usage);
    CHECK(std::string(e.what()).find("/nonexistent/k25.yaml") != std::string::npos);
  }
}

TEST_CASE("an unknown key names its line and path", "[config]") {
  const ConfigError e = config_error(kMinimalModel + "  hidden_sise: 12\n");
  CHECK(e.config_line() == 8);
  CHECK(e.key() == "model.hidden_sise");
  CHECK(std::string(e.what()).find("unknown key") != std::string::npos);
  const ConfigError top = config_error(kMinimalModel + "sweeep:\n  tokens: [1]\n");
  CHECK(top.key() == "sweeep");
  CHECK(top.config_line() == 8);
}

TEST_CASE("wrong types are named", "[config]") {
  const ConfigError e = config_error(kMinimalModel + "sweep:\n  iterations: many\n");
  CHECK(e.key() == "sweep.iterations");
  CHECK(e.config_line() == 9);
  CHECK(std::string(e.what()).find("expected an integer") != std::string::npos);
  CHECK(config_error(kMinimalModel + "sweep:\n  tokens: 4\n").key() == "sweep.tokens");
  CHECK(config_error(kMinimalModel + "sweep:\n  check: maybe\n").key() == "sweep.check");
  CHECK(config_error(kMinimalModel + "routing:\n  model: gaussian\n").key() == "routing.model");
  CHECK(config_error("model: [1, 2]\n").key() == "model");
}

TEST_CASE("missing required keys are named", "[config]") {
  CHECK(config_error("sweep:\n  tokens: [1]\n").key() == "(document).model");
  CHECK(config_error("model:\n  name: x\n  hidden_size: 8\n  num_layers: 2\n  routed_experts: 4\n").key() ==
        "model.experts_per_token");
  CHECK(config_error("").key() == "(document)");
}

TEST_CASE("zero and negative sizes are refused", "[config]") {
  const ConfigError zero = config_error(R"(model:
  name: tiny
  hidden_size: 0
  num_layers: 4
  routed_experts: 16
  experts_per_token: 4
)");
  CHECK(zero.key() == "model.hidden_size");
  CHECK(zero.config_line() == 3);
  CHECK(config_error(kMinimalModel + "sweep:\n  iterations: -5\n").key() == "sweep.iterations");
  CHECK(config_error(kMinimalModel + "sweep:\n  time_budget_s: 0\n").key() == "sweep.time_budget_s");
}

TEST_CASE("top-k larger than the experts is refused", "[config]") {
  const ConfigError e = config_error(R"(model:
  name: tiny
  hidden_size: 256
  num_layers: 4
  routed_experts: 4
  experts_per_token: 8
)");
  CHECK(e.key() == "model.experts_per_token");
  CHECK(e.config_line() == 6);
}

TEST_CASE("token counts must lie in 1..65536", "[config]") {
  CHECK(config_error(kMinimalModel + "sweep:\n  tokens: [1, 0]\n").key() == "sweep.tokens");
  CHECK(config_error(kMinimalModel + "sweep:\n  tokens: [65537]\n").key() == "sweep.tokens");
  CHECK_NOTHROW(parse_config(kMinimalModel + "sweep:\n  tokens: [1, 65536]\n", "ok.yaml"));
}

TEST_CASE("experts must spread evenly over the ranks", "[config]") {
  const RunConfig c = parse_config(kMinimalModel, "tiny.yaml");
  CHECK_NOTHROW(validate_for_ranks(c, 4));
  try {
    validate_for_ranks(c, 3);
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(e.key() == "model.routed_experts");
    CHECK(e.config_line() == 6);
  }
}

TEST_CASE("malformed YAML names its line", "[config]") {
  const ConfigError e = config_error("model:\n  name: [unclosed\n");
  CHECK(e.key() == "(document)");
  CHECK(e.config_line() > 0);
}

TEST_CASE("sweep.graph_sizes must be a non-empty ascending list of positive integers",
          "[graph_padding][config]") {
  // Without the key: vLLM's sizes, written into the effective config.
  const RunConfig defaults = parse_config(kMinimalModel, "min.yaml");
  CHECK(defaults.sweep.graph_sizes == vllm_graph_capture_sizes());
  CHECK(config_to_json(defaults)["sweep"]["graph_sizes"] == nlohmann::json(vllm_graph_capture_sizes()));
  const RunConfig ok = parse_config(kMinimalModel + "sweep:\n  graph_sizes: [1, 3, 4096]\n", "ok.yaml");
  CHECK(ok.sweep.graph_sizes == std::vector<int>{1, 3, 4096});

  const ConfigError descending =
      config_error(kMinimalModel + "sweep:\n  graph_sizes:\n    - 1\n    - 16\n    - 8\n");
  CHECK(descending.key() == "sweep.graph_sizes");
  CHECK(descending.config_line() == 12);  // the size out of order
  CHECK(std::string(descending.what()).find("strictly ascending: 8 follows 16") != std::string::npos);
  CHECK(descending.code() == ExitCode::bad_usage);

  const ConfigError repeated = config_error(kMinimalModel + "sweep:\n  graph_sizes: [4, 4]\n");
  CHECK(std::string(repeated.what()).find("4 follows 4") != std::string::npos);

  const ConfigError zero = config_error(kMinimalModel + "sweep:\n  graph_sizes: [0, 4]\n");
  CHECK(zero.key() == "sweep.graph_sizes");
  CHECK(zero.config_line() == 9);
  CHECK(std::string(zero.what()).find("0 is outside 1..65536") != std::string::npos);
  CHECK(config_error(kMinimalModel + "sweep:\n  graph_sizes: [2, -8]\n").key() == "sweep.graph_sizes");

  const ConfigError empty = config_error(kMinimalModel + "sweep:\n  graph_sizes: []\n");
  CHECK(empty.key() == "sweep.graph_sizes");
  CHECK(std::string(empty.what()).find("non-empty list") != std::string::npos);
  CHECK(config_error(kMinimalModel + "sweep:\n  graph_sizes: 8\n").key() == "sweep.graph_sizes");
}

TEST_CASE("a key given twice is refused with its file, line and key", "[config]") {
  // yaml-cpp keeps both and finds the first: the second value would be dropped without a word.
  const ConfigError model = config_error(kMinimalModel + "  hidden_size: 512\n");
  CHECK(model.code() == ExitCode::bad_usage);
  CHECK(model.key() == "model.hidden_size");
  CHECK(model.config_line() == 8);
  CHECK(std::string(model.what()) == "bad.yaml:8: model.hidden_size: given twice (first on line 3)");
  const ConfigError section = config_error(kMinimalModel + "sweep:\n  tokens: [1]\nsweep:\n  warmup: 2\n");
  CHECK(section.key() == "sweep");
  CHECK(section.config_line() == 10);
  const ConfigError entry =
      config_error(kMinimalModel + "  sequence:\n    - {kind: allreduce, dtype: bf16, bytes: 2, bytes: 4}\n");
  CHECK(entry.key() == "model.sequence[0].bytes");
  CHECK(std::string(entry.what()).find("given twice") != std::string::npos);
}
