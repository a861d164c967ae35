// Index maps of the MoE dispatch pack and combine unpack.
#include "plan/permute_maps.hpp"

namespace k25 {

std::vector<std::int32_t> dispatch_rows_of_copies(std::uint64_t copies, int tokens) {
  std::vector<std::int32_t> rows(copies);
  for (std::uint64_t i = 0; i < copies; ++i)
    rows[i] = static_cast<std::int32_t>(i % static_cast<std::uint64_t>(tokens));
  return rows;
}

CopiesOfTokens combine_copies_of_tokens(std::uint64_t copies, int tokens) {
  const auto t_count = static_cast<std::uint64_t>(tokens);
  CopiesOfTokens map;
  map.offsets.resize(t_count + 1, 0);
  map.index.reserve(copies);
  for (std::uint64_t t = 0; t < t_count; ++t) {
    map.offsets[t] = static_cast<std::int32_t>(map.index.size());
    for (std::uint64_t i = t; i < copies; i += t_count) map.index.push_back(static_cast<std::int32_t>(i));
  }
  map.offsets[t_count] = static_cast<std::int32_t>(map.index.size());
  return map;
}

}  // namespace k25
