// libFuzzer target: predict's nccl-tests readers (the printed table and the -J JSON), then the prediction and
// its outputs from what they read; bad input must end in a k25::Error.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "predict/nccl_tests_reader.hpp"
#include "predict_fuzz_base.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
    if (!doc.is_discarded() && k25::looks_like_nccl_tests_json(doc))
      predict_and_render(k25::alt_from_nccl_tests_json(doc, "fuzz.json"));
    else if (k25::looks_like_nccl_tests_text(text))
      predict_and_render(k25::alt_from_nccl_tests_text(text, "fuzz.txt"));
  } catch (const k25::Error&) {
    // The documented answer to a file predict cannot read (exit 2). Anything else is a finding.
  }
  return 0;
}
