// A count with its noun in the right number: "1 rank", "8 ranks", "1 host".
#pragma once

#include <string>
#include <string_view>

#include <fmt/format.h>

namespace k25 {

// `plural` defaults to the singular with an "s" appended.
inline std::string count_noun(long long count, std::string_view singular, std::string_view plural = {}) {
  if (count == 1) return fmt::format("1 {}", singular);
  return plural.empty() ? fmt::format("{} {}s", count, singular) : fmt::format("{} {}", count, plural);
}

}  // namespace k25
