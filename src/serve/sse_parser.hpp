// Incremental parser of a server-sent-events byte stream (WHATWG rules): bytes in, complete events out.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace k25 {

// One dispatched event: its `event:` type ("" when none was given) and its data lines joined by '\n'.
struct SseEvent {
  std::string type;
  std::string data;
  bool operator==(const SseEvent&) const = default;
};

// An event as the parser hands it over: views valid until the parser's next call.
struct SseView {
  std::string_view type;
  std::string_view data;
};

// Feeds arbitrary slices of the stream (an event may be split across slices, a slice may hold several
// events). Lines end with "\n", "\r\n" or "\r" (a "\r\n" split between two slices counts once). Lines
// starting with ':' are comments; `id:` and `retry:` are ignored; an event is dispatched at a blank line when
// it has data. Pure: no I/O, no clock; the caller timestamps the slice it feeds.
class SseParser {
 public:
  // Reads `bytes` up to the end of the next event and takes what it read off their front: true with the event
  // in `event` (its views valid until the next call; no copy, no allocation once the buffers have grown),
  // false when `bytes` ran out first (all of them kept for the event they begin).
  bool take(std::string_view& bytes, SseView& event);
  // Appends every event completed by `bytes` to `events`.
  void feed(std::string_view bytes, std::vector<SseEvent>& events);
  // True when bytes of an event that was never terminated by a blank line are pending (a cut stream).
  bool has_partial_event() const { return !line_.empty() || (!dispatched_ && (has_data_ || !type_.empty())); }
  // Bytes of the event being assembled: bounds memory against a server that never sends a blank line.
  std::size_t pending_bytes() const { return line_.size() + (dispatched_ ? 0 : data_.size()); }

 private:
  // One line into the event being assembled; true where it completes the event (a blank line after data).
  bool process_line(std::string_view line);

  std::string line_;         // the unterminated line so far
  std::string data_;         // data lines of the current event, '\n'-joined
  std::string type_;         // `event:` of the current event
  bool has_data_ = false;    // a data line was seen (data may still be empty)
  bool skip_lf_ = false;     // the previous slice ended with '\r': a leading '\n' belongs to it
  bool dispatched_ = false;  // the current event was handed out: cleared at the next call
};

}  // namespace k25
