// Config loader inputs found by fuzzing (tests/fuzz/fuzz_config): each must end in a ConfigError (exit 2).
#include <catch2/catch.hpp>

#include "common/error.hpp"
#include "config/config_loader.hpp"

TEST_CASE("config: a complex (non-scalar) YAML key is a ConfigError naming the line",
          "[config][regression]") {
  // fuzz_config crash: yaml-cpp's TypedBadConversion escaped from the unknown-key check (exit 3, no line).
  const std::string yaml =
      "model:\n  name: tiny\n  hidden_size: 256\n  num_layers: 4\n  routed_experts: 16\n"
      "?  experts_]er_token: 4\n";
  try {
    (void)k25::parse_config(yaml, "complex-key.yaml");
    FAIL("a complex key was accepted");
  } catch (const k25::ConfigError& e) {
    CHECK(e.config_file() == "complex-key.yaml");
    CHECK(e.config_line() == 6);
    CHECK(e.code() == k25::ExitCode::bad_usage);
  }
}
