// Feeding a response's bytes through the SSE parser, timestamping content chunks, and classifying the
// outcome.
#include "serve/streaming_response.hpp"

#include <algorithm>

#include "serve/stream_chunk.hpp"

namespace k25 {
namespace {
constexpr std::size_t kMaxEventBytes = 1 << 20;
constexpr std::size_t kMaxErrorBodyBytes = 64 << 10;
}  // namespace

StreamingResponse::StreamingResponse(long long id, bool warmup, SteadyTime start, long long forced_tokens) {
  record_.id = id;
  record_.forced_tokens = forced_tokens;
  record_.warmup = warmup;
  record_.start = start;
  // Room for the chunks a max_tokens stream sends (at most 4096: a larger max_tokens may end far earlier).
  if (forced_tokens > 0) record_.content_times.reserve(std::min<std::size_t>(forced_tokens, 4096) + 1);
}

bool StreamingResponse::on_body(std::string_view bytes, SteadyTime now) {
  body_started_ = true;
  if (done_seen_ || !abandon_class_.empty()) return abandon_class_.empty();
  SseView event;
  while (parser_.take(bytes, event)) {
    const StreamChunk chunk = interpret_stream_chunk(event.data);
    if (chunk.completion_tokens) record_.usage_tokens = chunk.completion_tokens;
    if (chunk.prompt_tokens) record_.usage_prompt_tokens = chunk.prompt_tokens;
    if (!chunk.finish_reason.empty()) record_.finish_reason = chunk.finish_reason;
    switch (chunk.kind) {
      case ChunkKind::content:
        record_.content_times.push_back(now);
        break;
      case ChunkKind::done:
        done_seen_ = true;
        return true;
      case ChunkKind::error:
        if (stream_error_message_.empty()) stream_error_message_ = chunk.error_message;
        break;
      case ChunkKind::malformed:
        abandon_class_ = serve_error::malformed_json;
        abandon_message_ = chunk.error_message;
        return false;
      case ChunkKind::empty:
        break;
    }
  }
  if (parser_.pending_bytes() > kMaxEventBytes) {
    abandon_class_ = serve_error::malformed_json;
    abandon_message_ = "an SSE event grew beyond 1 MiB without a blank line";
    return false;
  }
  return true;
}

void StreamingResponse::on_error_body(std::string_view bytes) {
  body_started_ = true;
  const std::size_t room = kMaxErrorBodyBytes - std::min(kMaxErrorBodyBytes, error_body_.size());
  error_body_.append(bytes.substr(0, room));
}

RequestRecord StreamingResponse::finish(const TransferEnd& end, SteadyTime now) {
  record_.end = now;
  auto fail = [&](const char* error_class, std::string message) {
    record_.ok = false;
    record_.error_class = error_class;
    record_.error_message = std::move(message);
    return std::move(record_);
  };
  using Kind = TransferEnd::Kind;
  if (!abandon_class_.empty()) return fail(abandon_class_.c_str(), abandon_message_);
  if (!stream_error_message_.empty()) return fail(serve_error::stream_error, stream_error_message_);
  const bool answered_ok = end.http_status == 200;
  if (answered_ok && done_seen_) {  // everything arrived; a transport error after [DONE] does not matter
    record_.ok = true;
    return std::move(record_);
  }
  switch (end.kind) {
    case Kind::refused:
      return fail(serve_error::connect_refused, end.message);
    case Kind::dns:
      return fail(serve_error::dns, end.message);
    case Kind::connect_timeout:
      return fail(serve_error::connect_timeout, end.message);
    case Kind::request_timeout:
      return fail(serve_error::request_timeout, end.message);
    case Kind::idle_timeout:
      return fail(serve_error::idle_timeout, end.message);
    case Kind::broken:
      if (end.http_status == 0 && !body_started_) return fail(serve_error::transport, end.message);
      if (answered_ok) return fail(serve_error::stream_cut, end.message);
      break;  // a non-200 whose body broke: classify by status below
    case Kind::aborted:
    case Kind::other:
      if (end.http_status == 0) return fail(serve_error::transport, end.message);
      break;
    case Kind::completed:
      break;
  }
  if (end.http_status >= 400 && end.http_status < 500)
    return fail(serve_error::http_4xx,
                "HTTP " + std::to_string(end.http_status) + ": " + error_body_message(error_body_));
  if (end.http_status >= 500)
    return fail(serve_error::http_5xx,
                "HTTP " + std::to_string(end.http_status) + ": " + error_body_message(error_body_));
  if (!answered_ok)
    return fail(serve_error::http_other,
                "HTTP " + std::to_string(end.http_status) + ": " + error_body_message(error_body_));
  if (end.kind != Kind::completed) return fail(serve_error::stream_cut, end.message);
  return fail(serve_error::missing_done, parser_.has_partial_event()
                                             ? "stream ended inside an event, without data: [DONE]"
                                             : "stream ended without data: [DONE]");
}

}  // namespace k25
