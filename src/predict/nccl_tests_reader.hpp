// nccl-tests' output as an alternative's per-op curve: the text table its *_perf programs print and the JSON
// file they write with -J (nccl-tests 2.19.x, JSON version 2: src/util.cu of NVIDIA/nccl-tests).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "predict/predict_inputs.hpp"

namespace k25 {

// Whether `text` is nccl-tests' printed output: its "# nccl-tests version" or "# Collective test starting:"
// line, or its result table's header ("size ... count ... type ... redop").
bool looks_like_nccl_tests_text(const std::string& text);

// Each result line's out-of-place time (in-place where out-of-place is not a number) at its size (bytes);
// the kind from the "# Collective test starting: NAME" line, the ranks from the "#  Rank" lines. Throws
// UsageError naming `path` (and the line) when the kind is not said, no result line is there, or a time is
// negative.
AltDocument alt_from_nccl_tests_text(const std::string& text, const std::string& path);

// Whether `doc` is nccl-tests' -J file: an object with a "results" list and "nccl_version" or "config".
bool looks_like_nccl_tests_json(const nlohmann::json& doc);

// results[].size and out_of_place.time (in_place where out-of-place is null or "nan"); the kind from args[0]
// (the program's name), the ranks from config.devices. Throws UsageError naming `path` as above.
AltDocument alt_from_nccl_tests_json(const nlohmann::json& doc, const std::string& path);

}  // namespace k25
