// libFuzzer target: predict's CSV reader (kind, bytes, op_us[, p90][, dtype]), then the prediction and its
// outputs from what it read; bad input must end in a k25::Error.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/error.hpp"
#include "predict/csv_alt_reader.hpp"
#include "predict_fuzz_base.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    if (k25::looks_like_alt_csv(text)) predict_and_render(k25::alt_from_csv(text, "fuzz.csv", 8));
  } catch (const k25::Error&) {
    // The documented answer to a file predict cannot read (exit 2). Anything else is a finding.
  }
  return 0;
}
