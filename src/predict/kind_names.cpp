// Collective kind and element type names in one form; numbers of the text inputs.
#include "predict/kind_names.hpp"

#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <utility>

#include <fmt/format.h>

#include "common/collective_kind.hpp"
#include "common/collective_kind_names.hpp"
#include "common/error.hpp"

namespace k25 {

std::string normalized_kind(const std::string& name) {
  std::string text = name;
  const std::string suffix = "_perf";
  if (text.size() > suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0)
    text.resize(text.size() - suffix.size());
  std::string kind;
  for (const char c : text)
    if (std::isalnum(static_cast<unsigned char>(c)) != 0)
      kind.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return kind;
}

std::string kind_title(const std::string& kind) {
  const std::string_view title = recorded_name_of_letters(kind);
  return title.empty() ? kind : std::string(title);
}

std::string kind_in_name(const std::string& text) {
  const std::string letters = normalized_kind(text);
  std::string found;
  std::size_t found_at = std::string::npos;
  // Longest names first ("alltoallv" before "alltoall", "allreduce" before "reduce"); a name inside one
  // already found is the same mention.
  for (const RecordedKind& recorded : recorded_kinds()) {
    const std::string_view name = recorded.letters;
    const std::size_t at = letters.find(name);
    if (at == std::string::npos) continue;
    const bool inside = found_at != std::string::npos && at >= found_at && at < found_at + found.size();
    if (inside) continue;
    if (!found.empty()) return {};  // two kinds named
    found = name;
    found_at = at;
  }
  return found;
}

double nccl_tests_size(const std::string& kind, double rank_part_bytes, int ranks) {
  const std::optional<CollectiveKind> known = enum_from_name<CollectiveKind>(kind);
  if (!known || rank_part_bytes <= 0) return rank_part_bytes;
  // Beyond kMaxCollectiveBytes the count is no exact integer; a NaN fails the comparison too.
  if (!(rank_part_bytes <= kMaxCollectiveBytes))
    throw UsageError(
        fmt::format("a {} rank part of {:g} bytes is beyond any collective's size (at most {:g})", kind,
                    rank_part_bytes, kMaxCollectiveBytes));
  return static_cast<double>(
      nccl_tests_bytes(*known, static_cast<std::uint64_t>(rank_part_bytes + 0.5), ranks));
}

std::string normalized_dtype(const std::string& name) {
  static constexpr std::array<std::pair<const char*, const char*>, 9> aliases{{{"bfloat16", "bf16"},
                                                                               {"half", "fp16"},
                                                                               {"float16", "fp16"},
                                                                               {"float", "fp32"},
                                                                               {"float32", "fp32"},
                                                                               {"double", "fp64"},
                                                                               {"float64", "fp64"},
                                                                               {"int", "int32"},
                                                                               {"f8e4m3", "fp8"}}};
  std::string lower;
  for (const char c : name)
    if (std::isalnum(static_cast<unsigned char>(c)) != 0)
      lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  for (const auto& [alias, dtype] : aliases)
    if (lower == alias) return dtype;
  return lower;
}

std::optional<double> parse_number(const std::string& text) {
  const std::size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return std::nullopt;
  const char* begin = text.c_str() + first;
  char* end = nullptr;
  const double value = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(value)) return std::nullopt;
  for (const char* rest = end; *rest != '\0'; ++rest)
    if (*rest != ' ' && *rest != '\t' && *rest != '\r') return std::nullopt;
  return value;
}

}  // namespace k25
