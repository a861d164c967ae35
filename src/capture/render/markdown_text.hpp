// Text in capture.md's tables: cells escaped (and cut where a name can be very long), shares as percentages.
#pragma once

#include <string>

#include <fmt/format.h>

namespace k25 {

// A table cell: '|' escaped, line breaks as spaces, cut after `max_length` characters ("...").
inline std::string markdown_cell(const std::string& text, std::size_t max_length = std::string::npos) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < max_length; ++i)
    out += text[i] == '|' ? std::string("\\|") : std::string(1, text[i] == '\n' ? ' ' : text[i]);
  return text.size() > max_length ? out + "..." : out;
}

// A fraction as "51.5 %".
inline std::string percent(double fraction) {
  return fmt::format("{:.1f} %", 100.0 * fraction);
}

}  // namespace k25
