// libFuzzer target: a hostile server's SSE stream, fed in fuzzer-chosen slices, through the SSE parser and
// the chunk interpreter; the events must not depend on where the stream was cut, and the interpreter (one SAX
// pass) must say of each event what a reading of its whole document says (reference_chunk below).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "serve/sse_parser.hpp"
#include "serve/stream_chunk.hpp"

namespace {

std::size_t text_bytes(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get_ref<const std::string&>().size() : 0;
}

// What a chunk says, from its whole document (nlohmann's DOM): the reference of the one-pass reading.
k25::StreamChunk reference_chunk(std::string_view data) {
  k25::StreamChunk chunk;
  std::string_view trimmed = data;
  while (!trimmed.empty() && (trimmed.back() == ' ' || trimmed.back() == '\n')) trimmed.remove_suffix(1);
  if (trimmed == "[DONE]") {
    chunk.kind = k25::ChunkKind::done;
    return chunk;
  }
  const nlohmann::json j = nlohmann::json::parse(trimmed, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    chunk.kind = k25::ChunkKind::malformed;
    return chunk;
  }
  const auto object = j.find("object");
  if (j.contains("error") || (object != j.end() && object->is_string() && *object == "error")) {
    chunk.kind = k25::ChunkKind::error;
    return chunk;
  }
  if (const auto usage = j.find("usage"); usage != j.end() && usage->is_object()) {
    const auto tokens = usage->find("completion_tokens");
    if (tokens != usage->end() && tokens->is_number_integer())
      chunk.completion_tokens = tokens->get<long long>();
    const auto prompt = usage->find("prompt_tokens");
    if (prompt != usage->end() && prompt->is_number_unsigned() &&
        prompt->get<std::uint64_t>() <= (1ull << 40))
      chunk.prompt_tokens = static_cast<long long>(prompt->get<std::uint64_t>());
  }
  if (const auto choices = j.find("choices"); choices != j.end() && choices->is_array()) {
    for (const auto& choice : *choices) {
      if (!choice.is_object()) continue;
      chunk.content_bytes += text_bytes(choice, "text");
      if (const auto finish = choice.find("finish_reason"); finish != choice.end() && finish->is_string())
        chunk.finish_reason = finish->get<std::string>();
      if (const auto delta = choice.find("delta"); delta != choice.end() && delta->is_object())
        chunk.content_bytes += text_bytes(*delta, "content") + text_bytes(*delta, "reasoning_content") +
                               text_bytes(*delta, "reasoning");
    }
  }
  chunk.kind = chunk.content_bytes > 0 ? k25::ChunkKind::content : k25::ChunkKind::empty;
  return chunk;
}

bool same_figures(const k25::StreamChunk& a, const k25::StreamChunk& b) {
  if (a.kind != b.kind) return false;
  if (a.kind == k25::ChunkKind::malformed || a.kind == k25::ChunkKind::error) return true;  // messages aside
  return a.content_bytes == b.content_bytes && a.completion_tokens == b.completion_tokens &&
         a.prompt_tokens == b.prompt_tokens && a.finish_reason == b.finish_reason;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t slice_seed = data[0];  // the first byte picks the slice lengths, the rest is the stream
  const std::string_view stream(reinterpret_cast<const char*>(data + 1), size - 1);

  std::vector<k25::SseEvent> whole;
  k25::SseParser at_once;
  at_once.feed(stream, whole);

  std::vector<k25::SseEvent> sliced;
  k25::SseParser in_slices;
  for (std::size_t at = 0, step = 0; at < stream.size(); ++step) {
    const std::size_t length = 1 + (slice_seed * (step + 1) + step) % 17;
    in_slices.feed(stream.substr(at, length), sliced);
    at += length;
  }
  if (sliced != whole || in_slices.has_partial_event() != at_once.has_partial_event()) std::abort();

  for (const auto& event : whole) {
    const k25::StreamChunk chunk = k25::interpret_stream_chunk(event.data);
    if (chunk.content_bytes > event.data.size()) std::abort();
    if (!same_figures(chunk, reference_chunk(event.data))) std::abort();
    (void)k25::error_body_message(event.data);
  }
  return 0;
}
