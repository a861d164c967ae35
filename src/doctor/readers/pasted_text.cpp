// Splitting a pasted file into lines, and taking a line apart.
#include "doctor/readers/pasted_text.hpp"

#include <cctype>
#include <charconv>

namespace k25 {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

}  // namespace

FactSource PastedText::source(std::size_t index) const {
  return fact_source(file, static_cast<int>(index + 1), index < lines.size() ? lines[index] : "");
}

PastedText pasted_text(std::string file, std::string text) {
  PastedText pasted{std::move(file), std::move(text), {}};
  const std::string_view all(pasted.text);
  std::size_t start = 0;
  while (start < all.size()) {
    std::size_t end = all.find('\n', start);
    if (end == std::string_view::npos) end = all.size();
    std::string_view line = all.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pasted.lines.push_back(line);
    start = end + 1;
  }
  return pasted;
}

std::string_view trimmed(std::string_view line) {
  while (!line.empty() && is_space(line.front())) line.remove_prefix(1);
  while (!line.empty() && is_space(line.back())) line.remove_suffix(1);
  return line;
}

std::vector<std::string_view> words_of(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

std::vector<std::string_view> table_cells(std::string_view line) {
  line = trimmed(line);
  if (line.size() < 2 || line.front() != '|') return {};
  line.remove_prefix(1);
  if (!line.empty() && line.back() == '|') line.remove_suffix(1);
  std::vector<std::string_view> cells;
  std::size_t start = 0;
  for (;;) {
    const std::size_t bar = line.find('|', start);
    cells.push_back(trimmed(line.substr(start, bar == std::string_view::npos ? bar : bar - start)));
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return cells;
}

bool is_table_rule(std::string_view line) {
  const std::vector<std::string_view> cells = table_cells(line);
  if (cells.empty()) return false;
  for (std::string_view cell : cells) {
    if (cell.empty()) return false;
    for (char c : cell)
      if (c != '-' && c != ':') return false;
  }
  return true;
}

int small_number(std::string_view digits) {
  if (digits.empty() || digits.size() > 9) return -1;
  int value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  return error == std::errc() && end == digits.data() + digits.size() && value >= 0 ? value : -1;
}

double decimal_number(std::string_view text) {
  if (text.empty() || text.size() > 24) return -1;
  const std::string copy(text);
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !(value >= 0) || value > 1e9) return -1;
  return value;
}

}  // namespace k25
