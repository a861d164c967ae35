// Classification of OpenAI streaming chunks and extraction of error messages from error bodies.
#include "serve/stream_chunk.hpp"

#include <cstdint>

#include <nlohmann/json.hpp>

namespace k25 {
namespace {

std::size_t text_bytes(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return 0;
  return it->get_ref<const std::string&>().size();
}

std::string message_of(const nlohmann::json& j) {
  if (!j.is_object()) return {};
  if (const auto error = j.find("error"); error != j.end()) {
    if (error->is_object()) {
      const auto message = error->find("message");
      if (message != error->end() && message->is_string()) return message->get<std::string>();
      return error->dump();
    }
    if (error->is_string()) return error->get<std::string>();
  }
  for (const char* key : {"message", "detail"}) {
    if (const auto it = j.find(key); it != j.end())
      return it->is_string() ? it->get<std::string>() : it->dump();
  }
  return {};
}

std::string cut(std::string_view text, std::size_t limit) {
  return std::string(text.substr(0, limit)) + (text.size() > limit ? "..." : "");
}

}  // namespace

StreamChunk interpret_stream_chunk(std::string_view data) {
  StreamChunk chunk;
  std::string_view trimmed = data;
  while (!trimmed.empty() && (trimmed.back() == ' ' || trimmed.back() == '\n')) trimmed.remove_suffix(1);
  if (trimmed == "[DONE]") {
    chunk.kind = ChunkKind::done;
    return chunk;
  }
  const nlohmann::json j = nlohmann::json::parse(trimmed, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    chunk.kind = ChunkKind::malformed;
    chunk.error_message = "malformed JSON in stream: " + cut(trimmed, 120);
    return chunk;
  }
  const auto object = j.find("object");  // any JSON type: a hostile server's `"object": 400` is not an error
  if (j.contains("error") || (object != j.end() && object->is_string() && *object == "error")) {
    chunk.kind = ChunkKind::error;
    chunk.error_message = message_of(j);
    if (chunk.error_message.empty()) chunk.error_message = cut(trimmed, 200);
    return chunk;
  }
  if (const auto usage = j.find("usage"); usage != j.end() && usage->is_object()) {
    const auto tokens = usage->find("completion_tokens");
    if (tokens != usage->end() && tokens->is_number_integer())
      chunk.completion_tokens = tokens->get<long long>();
    // A count no prompt reaches is not believed: sums of such counts could overflow.
    constexpr std::uint64_t kMostPromptTokens = std::uint64_t{1} << 40;
    const auto prompt = usage->find("prompt_tokens");
    if (prompt != usage->end() && prompt->is_number_unsigned() &&
        prompt->get<std::uint64_t>() <= kMostPromptTokens)
      chunk.prompt_tokens = static_cast<long long>(prompt->get<std::uint64_t>());
  }
  if (const auto choices = j.find("choices"); choices != j.end() && choices->is_array()) {
    for (const auto& choice : *choices) {
      if (!choice.is_object()) continue;
      chunk.content_bytes += text_bytes(choice, "text");
      if (const auto finish = choice.find("finish_reason"); finish != choice.end() && finish->is_string())
        chunk.finish_reason = finish->get<std::string>();
      if (const auto delta = choice.find("delta"); delta != choice.end() && delta->is_object()) {
        chunk.content_bytes += text_bytes(*delta, "content") + text_bytes(*delta, "reasoning_content") +
                               text_bytes(*delta, "reasoning");
      }
    }
  }
  chunk.kind = chunk.content_bytes > 0 ? ChunkKind::content : ChunkKind::empty;
  return chunk;
}

std::string error_body_message(std::string_view body) {
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!j.is_discarded()) {
    std::string message = message_of(j);
    if (!message.empty()) return message;
  }
  return cut(body, 200);
}

}  // namespace k25
