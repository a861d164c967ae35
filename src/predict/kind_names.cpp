// Collective kind and element type names in one form; numbers of the text inputs.
#include "predict/kind_names.hpp"

#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <utility>

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
  static constexpr std::array<std::pair<const char*, const char*>, 8> titles{
      {{"allreduce", "AllReduce"},
       {"alltoall", "AllToAll"},
       {"alltoallv", "AllToAllv"},
       {"allgather", "AllGather"},
       {"reducescatter", "ReduceScatter"},
       {"broadcast", "Broadcast"},
       {"reduce", "Reduce"},
       {"sendrecv", "SendRecv"}}};
  for (const auto& [name, title] : titles)
    if (kind == name) return title;
  return kind;
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
