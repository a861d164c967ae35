// Finding a Kineto trace's events array and its event boundaries by scanning its text.
#include "capture/readers/kineto_layout.hpp"

#include <cstring>
#include <string_view>

namespace k25 {
namespace {

constexpr std::string_view kKey = "\"traceEvents\"";
constexpr int kKeyTries = 8;    // occurrences of the key text tried as the top-level key
constexpr int kTailTries = 64;  // ']' tried, from the end, as the array's close
constexpr std::size_t kTailWindow = 1 << 20;

bool is_json_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

// Whether text[pos] is a newline that separates two events: a ',' ends its line and '{' starts the next.
// Returns the comma's position.
std::optional<std::size_t> boundary_at(const char* text, std::size_t from, std::size_t to,
                                       std::size_t newline) {
  std::size_t before = newline;
  while (before > from && is_json_space(text[before - 1])) --before;
  if (before == from || text[before - 1] != ',') return std::nullopt;
  std::size_t after = newline + 1;
  while (after < to && is_json_space(text[after])) ++after;
  if (after >= to || text[after] != '{') return std::nullopt;
  return before - 1;
}

}  // namespace

std::optional<KinetoLayout> find_kineto_layout(
    const char* text, std::size_t size, const std::function<bool(const std::string&)>& parses_as_object) {
  std::optional<KinetoLayout> layout = find_kineto_head(text, size, parses_as_object);
  if (layout) find_kineto_tail(text, size, layout->events_open + 1, parses_as_object, *layout);
  return layout;
}

std::optional<KinetoLayout> find_kineto_head(
    const char* text, std::size_t size, const std::function<bool(const std::string&)>& parses_as_object) {
  const std::string_view all(text, size);
  KinetoLayout layout;
  std::size_t key = 0;
  bool found = false;
  for (int tries = 0; tries < kKeyTries && !found; ++tries, ++key) {
    key = all.find(kKey, key);
    if (key == std::string_view::npos) return std::nullopt;
    std::size_t open = key + kKey.size();
    while (open < size && is_json_space(text[open])) ++open;
    if (open >= size || text[open] != ':') continue;
    ++open;
    while (open < size && is_json_space(text[open])) ++open;
    if (open >= size || text[open] != '[') continue;
    // The key is the top-level object's where the text before it, closed, is an object.
    std::string head(text, key);
    head += "\"x\": 0}";
    if (!parses_as_object(head)) continue;
    layout.head = std::move(head);
    layout.events_open = open;
    found = true;
  }
  if (!found) return std::nullopt;
  return layout;
}

bool find_kineto_tail(const char* text, std::size_t size, std::size_t from,
                      const std::function<bool(const std::string&)>& parses_as_object, KinetoLayout& layout) {
  // The array's ']': the last one after which the rest, opened, is an object.
  const std::size_t floor = size > kTailWindow ? size - kTailWindow : from;
  int tries = 0;
  for (std::size_t p = size; p-- > std::max(floor, from) && tries < kTailTries;) {
    if (text[p] != ']') continue;
    ++tries;
    std::string tail = "{\"x\": []";
    tail.append(text + p + 1, size - p - 1);
    if (!parses_as_object(tail)) continue;
    layout.events_close = p;
    layout.tail = std::move(tail);
    return true;
  }
  return false;
}

std::vector<EventPiece> event_pieces(const char* text, std::size_t size, const KinetoLayout& layout,
                                     std::size_t piece_bytes) {
  return event_pieces_between(text, layout.events_open, layout.events_close.value_or(size), piece_bytes);
}

std::vector<EventPiece> event_pieces_between(const char* text, std::size_t first, std::size_t end,
                                             std::size_t piece_bytes) {
  std::vector<EventPiece> pieces;
  while (first < end) {
    std::size_t at = first + piece_bytes;
    std::optional<std::size_t> comma;
    while (!comma && at < end) {
      const void* newline = std::memchr(text + at, '\n', end - at);
      if (!newline) break;
      const auto n = static_cast<std::size_t>(static_cast<const char*>(newline) - text);
      comma = boundary_at(text, first + 1, end, n);
      at = n + 1;
    }
    if (!comma) {
      pieces.push_back({first, end});
      break;
    }
    pieces.push_back({first, *comma});
    first = *comma;
  }
  return pieces;
}

std::optional<std::size_t> last_event_boundary(const char* text, std::size_t from, std::size_t to) {
  for (std::size_t n = to; n-- > from;) {
    if (text[n] != '\n') continue;
    if (const auto comma = boundary_at(text, from, to, n)) return comma;
  }
  return std::nullopt;
}

}  // namespace k25
