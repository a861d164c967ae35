// What one streaming request produced: its timeline (steady clock at byte arrival) and its outcome.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace k25 {

using SteadyClock = std::chrono::steady_clock;
using SteadyTime = SteadyClock::time_point;

// Error classes a failed request is counted under (ServeLevel::errors keys).
namespace serve_error {
inline constexpr const char* connect_refused =
    "connect_refused";                     // TCP connection refused / host unreachable
inline constexpr const char* dns = "dns";  // host name did not resolve
inline constexpr const char* connect_timeout = "connect_timeout";  // no connection within connect_timeout_s
inline constexpr const char* idle_timeout = "idle_timeout";  // connected, then no byte for idle_timeout_s
inline constexpr const char* request_timeout =
    "request_timeout";  // whole request longer than request_timeout_s
inline constexpr const char* http_4xx = "http_4xx";
inline constexpr const char* http_5xx = "http_5xx";
inline constexpr const char* http_other = "http_other";      // any other non-200 status
inline constexpr const char* stream_error = "stream_error";  // error event inside a 200 stream
inline constexpr const char* stream_cut = "stream_cut";      // connection broke in the middle of the body
inline constexpr const char* missing_done = "missing_done";  // body ended cleanly but without data: [DONE]
inline constexpr const char* malformed_json = "malformed_json";  // a data event that is not a JSON object
inline constexpr const char* transport = "transport";            // any other libcurl failure
}  // namespace serve_error

// Where a request's output token count comes from, best first.
enum class TokenSource {
  usage,       // the server's usage.completion_tokens
  max_tokens,  // no usage, but ignore_eos was asked and the request ended by length: max_tokens were produced
  // neither: the number of content chunks (a chunk may carry several tokens), so a TPOT from it is time per
  // chunk
  chunks,
};
inline const char* to_string(TokenSource source) {
  switch (source) {
    case TokenSource::usage:
      return "usage";
    case TokenSource::max_tokens:
      return "max_tokens";
    case TokenSource::chunks:
      return "chunks";
  }
  return "?";
}

struct RequestRecord {
  long long id = 0;
  bool warmup = false;
  SteadyTime start{};                            // just before the request was handed to libcurl
  SteadyTime end{};                              // transfer finished, failed or was abandoned
  std::vector<SteadyTime> content_times;         // arrival of each chunk carrying generated text
  std::optional<long long> usage_tokens;         // usage.completion_tokens when the server sent it
  std::optional<long long> usage_prompt_tokens;  // usage.prompt_tokens when the server sent it
  std::string finish_reason;  // the stream's last choices[].finish_reason ("length", "stop")
  // max_tokens when ignore_eos was asked (the server had to produce that many), else 0
  long long forced_tokens = 0;
  bool ok = false;
  std::string error_class;  // one of serve_error::*, empty when ok
  std::string error_message;

  TokenSource token_source() const {
    if (usage_tokens) return TokenSource::usage;
    if (forced_tokens > 0 && finish_reason == "length") return TokenSource::max_tokens;
    return TokenSource::chunks;
  }
  // Output tokens from token_source(): usage.completion_tokens, max_tokens, or the number of content chunks.
  long long output_tokens() const {
    switch (token_source()) {
      case TokenSource::usage:
        return *usage_tokens;
      case TokenSource::max_tokens:
        return forced_tokens;
      case TokenSource::chunks:
        break;
    }
    return static_cast<long long>(content_times.size());
  }
};

}  // namespace k25
