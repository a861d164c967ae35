// Where a Kineto trace's events lie in its text, so that the reader parses them a few megabytes at a time
// (the parser's index of one piece, not of the whole file): the top-level object's head (the keys before
// "traceEvents"), the events array, its tail (the keys after it: libkineto writes baseTimeNanoseconds last),
// and the array cut into pieces at event boundaries. Found by scanning, each part then proven by parsing it:
// where the text is laid out otherwise (one line, an odd writer), there is no layout and the reader parses
// the whole document.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace k25 {

struct KinetoLayout {
  // The top-level object up to "traceEvents", closed ({"schemaVersion": 1, ..., "x": 0}): a JSON text of its
  // own, with room for a parser's padding.
  std::string head;
  std::size_t events_open = 0;  // the position of the events array's '['
  // The position of its ']' and the object after it ({"x": [] ..., "baseTimeNanoseconds": ...}); none where
  // the text ends inside the events (a trace still being written).
  std::optional<std::size_t> events_close;
  std::string tail;
};

// The layout of `text` (`size` bytes), nullopt where it is not found. The head and the tail are checked to
// parse as objects by `parses_as_object`.
std::optional<KinetoLayout> find_kineto_layout(
    const char* text, std::size_t size, const std::function<bool(const std::string&)>& parses_as_object);

// Its parts, for a text read a window at a time: the head and the events array's '[' in text[0, size) (the
// layout's head and events_open; events_close unset), nullopt where they are not found there; and the
// array's ']' and the tail in text[from, size), where `size` is the text's end (the layout's events_close and
// tail), nullopt where the text ends inside the events.
std::optional<KinetoLayout> find_kineto_head(const char* text, std::size_t size,
                                             const std::function<bool(const std::string&)>& parses_as_object);
bool find_kineto_tail(const char* text, std::size_t size, std::size_t from,
                      const std::function<bool(const std::string&)>& parses_as_object, KinetoLayout& layout);

// The events array cut into pieces of about `piece_bytes` at event boundaries: a comma that ends a line and
// an object that starts the next one (a newline is never inside a JSON string). Each piece is [first, last]:
// the byte before its first event (the array's '[' or a separating comma) and the byte after its last (a
// separating comma, or the array's ']'; for a cut array, the text's end). The reader writes '[' and ']' over
// the commas while it parses a piece.
struct EventPiece {
  std::size_t first = 0, last = 0;
};
std::vector<EventPiece> event_pieces(const char* text, std::size_t size, const KinetoLayout& layout,
                                     std::size_t piece_bytes);
// The same for the events in text[first, end]: `first` the '[' or a separating comma, `end` the ']' (or the
// text's end).
std::vector<EventPiece> event_pieces_between(const char* text, std::size_t first, std::size_t end,
                                             std::size_t piece_bytes);

// The last event boundary (its separating comma) in text[from, to); nullopt where there is none.
std::optional<std::size_t> last_event_boundary(const char* text, std::size_t from, std::size_t to);

}  // namespace k25
