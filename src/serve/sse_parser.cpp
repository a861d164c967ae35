// Incremental server-sent-events parser: line splitting across reads, field handling, event dispatch.
#include "serve/sse_parser.hpp"

namespace k25 {

void SseParser::feed(std::string_view bytes, std::vector<SseEvent>& events) {
  std::size_t pos = 0;
  if (skip_lf_ && !bytes.empty()) {
    if (bytes.front() == '\n') pos = 1;
    skip_lf_ = false;
  }
  while (pos < bytes.size()) {
    const std::size_t end = bytes.find_first_of("\r\n", pos);
    if (end == std::string_view::npos) {
      line_.append(bytes.substr(pos));
      return;
    }
    std::string_view line = bytes.substr(pos, end - pos);
    if (!line_.empty()) {
      line_.append(line);
      process_line(line_, events);
      line_.clear();
    } else {
      process_line(line, events);
    }
    pos = end + 1;
    if (bytes[end] == '\r') {
      if (pos < bytes.size()) {
        if (bytes[pos] == '\n') ++pos;
      } else {
        skip_lf_ = true;
      }
    }
  }
}

void SseParser::process_line(std::string_view line, std::vector<SseEvent>& events) {
  if (line.empty()) {  // blank line: dispatch
    if (has_data_) events.push_back(SseEvent{std::move(type_), std::move(data_)});
    data_.clear();
    type_.clear();
    has_data_ = false;
    return;
  }
  if (line.front() == ':') return;  // comment
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
}

}  // namespace k25
