// Meaning of one SSE data payload of an OpenAI-compatible streaming response, and of an HTTP error body.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace k25 {

enum class ChunkKind {
  done,       // "[DONE]": the server's end of stream
  content,    // carries generated text (completions choices[0].text, chat delta.content or reasoning)
  empty,      // valid chunk without generated text: chat role-only chunk, finish chunk, usage-only chunk
  error,      // {"error": {...}} or {"object": "error", ...} sent inside a 200 stream
  malformed,  // not JSON, or JSON that is not an object
};

struct StreamChunk {
  ChunkKind kind = ChunkKind::empty;
  std::size_t content_bytes = 0;               // bytes of generated text in this chunk
  std::optional<long long> completion_tokens;  // usage.completion_tokens when the chunk carries usage
  std::optional<long long> prompt_tokens;      // usage.prompt_tokens when the chunk carries usage
  std::string finish_reason;                   // choices[].finish_reason when a choice carries one ("length")
  std::string error_message;                   // for error and malformed
};

// Interprets one event's data. Both API shapes are recognised whichever was requested.
StreamChunk interpret_stream_chunk(std::string_view data);

// The human message of an error response body: {"error": {"message"}} (OpenAI, vLLM), a flat
// {"message": ...} or {"detail": ...} (older servers, FastAPI), else the body itself cut to 200 bytes.
std::string error_body_message(std::string_view body);

}  // namespace k25
