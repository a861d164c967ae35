// Collective kind and element type names as the inputs write them ("AllReduce", "all_reduce_perf",
// "allreduce"; "bfloat16", "bf16"), in one form each, and numbers as the text inputs write them.
#pragma once

#include <optional>
#include <string>

namespace k25 {

// Lower case, letters and digits only, nccl-tests' "_perf" suffix dropped: "AllReduce", "all_reduce" and
// "all_reduce_perf" are all "allreduce". Empty when nothing is left.
std::string normalized_kind(const std::string& name);

// Title of a normalized kind for the output ("AllReduce"); the name itself for a kind it does not know.
std::string kind_title(const std::string& kind);

// The normalized kind whose name (or nccl-tests program's) `text` holds, as in a file name
// ("all_reduce_8gpu.txt", "nccl-allgather.log"); empty where it holds none or several.
std::string kind_in_name(const std::string& text);

// The largest size of one collective predict takes, bytes: 1 PiB (2^50; far beyond any GPU's memory, and
// every count below it an exact integer in a double).
inline constexpr double kMaxCollectiveBytes = 1125899906842624.0;

// nccl-tests' size of an op of the normalized `kind` from one rank's part among `ranks`
// (common/collective_kind's rule; kinds it does not describe are their part). Throws UsageError for a part
// above kMaxCollectiveBytes.
double nccl_tests_size(const std::string& kind, double rank_part_bytes, int ranks);

// "bf16", "fp16", "fp32", "fp64", "fp8", "int32", ...: nccl-tests' type names ("bfloat16", "half", "float",
// "double") and k25comm's; a name it does not know, lower case, letters and digits only.
std::string normalized_dtype(const std::string& name);

// The whole of `text` (spaces around it allowed) as a finite number; empty otherwise.
std::optional<double> parse_number(const std::string& text);

}  // namespace k25
