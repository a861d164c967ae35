// libFuzzer target: predict's nccl-tests readers (the printed table and the -J JSON), then the prediction and
// its outputs from what they read; bad input must end in a k25::Error.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/error.hpp"
#include "predict/nccl_tests_reader.hpp"
#include "predict_fuzz_base.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    k25::AltReadContext context;
    context.base_ranks = 8;  // chooses among runs of several rank counts
    if (k25::looks_like_nccl_tests_json(text))
      predict_and_render(k25::alt_from_nccl_tests_json(text, "fuzz.json", context));
    else if (k25::looks_like_nccl_tests_text(text))
      predict_and_render(k25::alt_from_nccl_tests_text(text, "all_reduce_fuzz.txt", context));
  } catch (const k25::Error&) {
    // The documented answer to a file predict cannot read (exit 2). Anything else is a finding.
  }
  return 0;
}
