// Incremental server-sent-events parser: line splitting across reads, field handling, event dispatch.
#include "serve/sse_parser.hpp"

#include <cstring>

namespace k25 {
namespace {

// The first '\n' or '\r' from `pos` on (two memchr scans: find_first_of tries each byte against the set).
std::size_t line_end(std::string_view bytes, std::size_t pos) {
  const char* begin = bytes.data() + pos;
  std::size_t length = bytes.size() - pos;
  const void* lf = std::memchr(begin, '\n', length);
  if (lf != nullptr) length = static_cast<std::size_t>(static_cast<const char*>(lf) - begin);
  const void* cr = std::memchr(begin, '\r', length);
  if (cr != nullptr) return pos + static_cast<std::size_t>(static_cast<const char*>(cr) - begin);
  return lf != nullptr ? pos + length : std::string_view::npos;
}

}  // namespace

bool SseParser::take(std::string_view& bytes, SseView& event) {
  if (dispatched_) {  // the event handed out last time is done with
    data_.clear();
    type_.clear();
    has_data_ = false;
    dispatched_ = false;
  }
  std::size_t pos = 0;
  if (skip_lf_ && !bytes.empty()) {
    if (bytes.front() == '\n') pos = 1;
    skip_lf_ = false;
  }
  while (pos < bytes.size()) {
    const std::size_t end = line_end(bytes, pos);
    if (end == std::string_view::npos) {
      line_.append(bytes.substr(pos));
      break;
    }
    const std::string_view line = bytes.substr(pos, end - pos);
    bool dispatch = false;
    if (!line_.empty()) {
      line_.append(line);
      dispatch = process_line(line_);
      line_.clear();
    } else {
      dispatch = process_line(line);
    }
    pos = end + 1;
    if (bytes[end] == '\r') {
      if (pos < bytes.size()) {
        if (bytes[pos] == '\n') ++pos;
      } else {
        skip_lf_ = true;
      }
    }
    if (dispatch) {
      bytes.remove_prefix(pos);
      dispatched_ = true;
      event = {type_, data_};
      return true;
    }
  }
  bytes = {};
  return false;
}

void SseParser::feed(std::string_view bytes, std::vector<SseEvent>& events) {
  SseView event;
  while (take(bytes, event)) events.push_back({std::string(event.type), std::string(event.data)});
}

bool SseParser::process_line(std::string_view line) {
  if (line.empty()) {  // blank line: dispatch
    if (has_data_) return true;
    type_.clear();
    return false;
  }
  if (line.front() == ':') return false;  // comment
  std::string_view field = line, value;
  if (const std::size_t colon = line.find(':'); colon != std::string_view::npos) {
    field = line.substr(0, colon);
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (field == "data") {
    if (has_data_) data_.push_back('\n');
    data_.append(value);
    has_data_ = true;
  } else if (field == "event") {
    type_.assign(value);
  }
  // id, retry and unknown fields: ignored
  return false;
}

}  // namespace k25
