// Reading JSON number and string tokens in place: decimal microseconds into nanoseconds, integers, strings.
#include "capture/readers/json_tokens.hpp"

#include <charconv>
#include <climits>
#include <cmath>

namespace k25 {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::string_view trimmed(std::string_view token) {
  while (!token.empty() && is_space(token.back())) token.remove_suffix(1);
  return token;
}

// A number with an exponent, through a double (times `scale`).
std::optional<std::int64_t> through_double(std::string_view text, long double scale) {
  double d = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(d)) return std::nullopt;
  const long double scaled = static_cast<long double>(d) * scale;
  if (std::fabs(scaled) >= 9.2e18L) return std::nullopt;
  return static_cast<std::int64_t>(std::llroundl(scaled));
}

}  // namespace

std::optional<std::int64_t> microseconds_to_ns(std::string_view token) {
  const std::string_view text = trimmed(token);
  std::size_t i = 0;
  const bool negative = i < text.size() && text[i] == '-';
  if (negative) ++i;
  if (i >= text.size() || !is_digit(text[i])) return std::nullopt;
  constexpr std::int64_t kMaxWhole = (INT64_MAX - 1000) / 1000;
  std::int64_t whole = 0;
  for (; i < text.size() && is_digit(text[i]); ++i) {
    whole = whole * 10 + (text[i] - '0');
    if (whole > kMaxWhole) return std::nullopt;
  }
  std::int64_t fraction = 0;  // the first three decimals, in nanoseconds
  int decimals = 0;
  bool round_up = false;
  if (i < text.size() && text[i] == '.') {
    ++i;
    if (i >= text.size() || !is_digit(text[i])) return std::nullopt;
    for (; i < text.size() && is_digit(text[i]); ++i, ++decimals) {
      if (decimals < 3) fraction = fraction * 10 + (text[i] - '0');
      if (decimals == 3) round_up = text[i] >= '5';
    }
  }
  if (i < text.size()) {
    if (text[i] == 'e' || text[i] == 'E') return through_double(text, 1000.0L);
    return std::nullopt;
  }
  for (int d = decimals; d < 3; ++d) fraction *= 10;
  const std::int64_t ns = whole * 1000 + fraction + (round_up ? 1 : 0);
  return negative ? -ns : ns;
}

std::optional<std::int64_t> integer_of(std::string_view token) {
  const std::string_view text = trimmed(token);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error == std::errc() && end == text.data() + text.size()) return value;
  if (error == std::errc() && end < text.data() + text.size() &&
      (*end == '.' || *end == 'e' || *end == 'E')) {
    if (*end == '.') {  // "4.0": the whole part, where the rest is a well-formed fraction
      const char* p = end + 1;
      while (p < text.data() + text.size() && is_digit(*p)) ++p;
      if (p == text.data() + text.size() && p > end + 1) return value;
    }
    return through_double(text, 1.0L);
  }
  return std::nullopt;
}

std::optional<std::string_view> plain_string(std::string_view token) {
  const std::string_view text = trimmed(token);
  if (text.size() < 2 || text.front() != '"' || text.back() != '"') return std::nullopt;
  const std::string_view inside = text.substr(1, text.size() - 2);
  if (inside.find('\\') != std::string_view::npos) return std::nullopt;
  return inside;
}

}  // namespace k25
