// State of one streaming response while its bytes arrive, and the verdict once the transfer ends.
#pragma once

#include <string>
#include <string_view>

#include "serve/request_record.hpp"
#include "serve/sse_parser.hpp"

namespace k25 {

// How the transfer ended, as far as the transport knows (filled from libcurl by the client; pure data here).
struct TransferEnd {
  enum class Kind {
    completed,        // transport finished without error
    refused,          // couldn't connect
    dns,              // couldn't resolve
    connect_timeout,  // timed out before a connection was made
    request_timeout,  // timed out after the connection was made
    idle_timeout,     // abandoned by the client: no byte for idle_timeout_s
    broken,           // receive error, partial body, empty reply
    aborted,          // the client abandoned it from a write callback (see StreamingResponse::abandon reason)
    other,
  };
  Kind kind = Kind::completed;
  long http_status = 0;
  std::string message;  // libcurl's error text
};

class StreamingResponse {
 public:
  // `forced_tokens`: max_tokens when the request asked for ignore_eos (the server must produce that many),
  // else 0; a stream without usage that ends by "length" counts them (RequestRecord::output_tokens).
  StreamingResponse(long long id, bool warmup, SteadyTime start, long long forced_tokens = 0);

  // Body bytes of a 200 response arrived at `now`. Returns false when the transfer should be abandoned
  // (malformed JSON, oversized event): the reason is kept for the verdict.
  bool on_body(std::string_view bytes, SteadyTime now);
  // Body bytes of a non-200 response: kept (up to 64 KiB) for the error message.
  void on_error_body(std::string_view bytes);

  bool done_seen() const { return done_seen_; }
  bool body_started() const { return body_started_; }

  RequestRecord finish(const TransferEnd& end, SteadyTime now);

 private:
  RequestRecord record_;
  SseParser parser_;
  std::string error_body_;
  std::string abandon_class_, abandon_message_;
  std::string stream_error_message_;
  bool done_seen_ = false;
  bool body_started_ = false;
};

}  // namespace k25
