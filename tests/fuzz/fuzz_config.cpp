// libFuzzer target: the YAML config loader must answer any input with a config or a ConfigError, nothing else.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/error.hpp"
#include "config/config_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const k25::RunConfig config = k25::parse_config(text, "fuzz.yaml");
    k25::validate_for_ranks(config, 4);
  } catch (const k25::Error&) {
    // A clear, exit-code-carrying rejection is the expected answer to bad input. Any other exception escapes
    // and libFuzzer reports it as a crash: main() would map it to the wrong exit code (3 instead of 2).
  }
  return 0;
}
