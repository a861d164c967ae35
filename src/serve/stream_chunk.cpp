// Classification of OpenAI streaming chunks and extraction of error messages from error bodies.
#include "serve/stream_chunk.hpp"

#include <array>
#include <cstdint>
#include <utility>

#include <nlohmann/json.hpp>

namespace k25 {
namespace {

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

// What a chunk says, read in one pass over its JSON through nlohmann's SAX interface: the DOM parser's own
// lexer and grammar (so that what is malformed is the same), without building the document: no allocation
// per value. A key given twice counts as the DOM counts it, the last one wins.
class ChunkScan final : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool not_object = false;              // the text is JSON, but not an object
  std::optional<long long> completion;  // usage.completion_tokens
  std::optional<long long> prompt;      // usage.prompt_tokens
  std::size_t content_bytes = 0;        // of every choice
  std::string finish_reason;            // the last choice's that is a string

  // A top-level "error" key, or "object": "error" (the last "object" given).
  bool is_error() const { return error_key_ || object_is_error_; }

  bool null() override { return scalar(Value::other); }
  bool boolean(bool) override { return scalar(Value::other); }
  bool number_integer(number_integer_t value) override {
    return integer(static_cast<long long>(value), false);
  }
  bool number_unsigned(number_unsigned_t value) override {
    unsigned_value_ = value;
    return integer(static_cast<long long>(value), true);
  }
  bool number_float(number_float_t, const string_t&) override { return scalar(Value::other); }
  bool string(string_t& value) override {
    text_ = &value;
    return scalar(Value::text);
  }
  bool binary(binary_t&) override { return scalar(Value::other); }
  bool start_object(std::size_t) override { return open(true); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& name) override {
    field_ = field_of(role(), name);
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  // What an open container is to the chunk; anything below the depth of interest is `other`.
  enum class Role : std::uint8_t { other, top, usage, choices, choice, delta };
  // The key whose value comes next.
  enum class Field : std::uint8_t {
    none,
    error,
    object,
    usage,
    choices,
    completion_tokens,
    prompt_tokens,
    text,
    finish_reason,
    delta,
    content,
    reasoning_content,
    reasoning,
  };
  enum class Value : std::uint8_t { other, text, integer };
  static constexpr std::size_t kDepth = 8;  // the chunk's fields lie at depth 4 at most

  static Field field_of(Role role, std::string_view name) {
    switch (role) {
      case Role::top:
        return name == "error"     ? Field::error
               : name == "object"  ? Field::object
               : name == "usage"   ? Field::usage
               : name == "choices" ? Field::choices
                                   : Field::none;
      case Role::usage:
        return name == "completion_tokens" ? Field::completion_tokens
               : name == "prompt_tokens"   ? Field::prompt_tokens
                                           : Field::none;
      case Role::choice:
        return name == "text"            ? Field::text
               : name == "finish_reason" ? Field::finish_reason
               : name == "delta"         ? Field::delta
                                         : Field::none;
      case Role::delta:
        return name == "content"             ? Field::content
               : name == "reasoning_content" ? Field::reasoning_content
               : name == "reasoning"         ? Field::reasoning
                                             : Field::none;
      default:
        return Field::none;
    }
  }
  Role role() const { return depth_ > 0 && depth_ <= kDepth ? roles_[depth_ - 1] : Role::other; }

  // A value starts (a scalar, or a container about to open): the field it is for, cleared (the last key
  // given wins), and the role of the container it opens.
  Role begin_value(bool container, bool object) {
    const Field field = std::exchange(field_, Field::none);
    const bool in_choices = role() == Role::choices;
    if (depth_ == 0) {
      not_object = !object;
      return object ? Role::top : Role::other;
    }
    switch (field) {
      case Field::error:
        error_key_ = true;
        break;
      case Field::object:
        object_is_error_ = false;
        break;
      case Field::usage:
        completion.reset();
        prompt.reset();
        return container && object ? Role::usage : Role::other;
      case Field::choices:
        content_bytes = 0;
        finish_reason.clear();
        return container && !object ? Role::choices : Role::other;
      case Field::completion_tokens:
        completion.reset();
        break;
      case Field::prompt_tokens:
        prompt.reset();
        break;
      case Field::text:
        choice_.text = 0;
        break;
      case Field::finish_reason:
        choice_.finish.reset();
        break;
      case Field::delta:
        choice_.content = choice_.reasoning_content = choice_.reasoning = 0;
        return container && object ? Role::delta : Role::other;
      case Field::content:
        choice_.content = 0;
        break;
      case Field::reasoning_content:
        choice_.reasoning_content = 0;
        break;
      case Field::reasoning:
        choice_.reasoning = 0;
        break;
      case Field::none:
        if (in_choices && container && object) {
          choice_ = {};
          return Role::choice;
        }
        break;
    }
    last_field_ = field;
    return Role::other;
  }

  bool scalar(Value value) {
    begin_value(false, false);
    if (depth_ == 0) {  // a top-level scalar: not an object
      not_object = true;
      return true;
    }
    const std::size_t bytes = value == Value::text ? text_->size() : 0;
    switch (last_field_) {
      case Field::object:
        object_is_error_ = value == Value::text && *text_ == "error";
        break;
      case Field::text:
        choice_.text = bytes;
        break;
      case Field::finish_reason:
        if (value == Value::text) choice_.finish = *text_;
        break;
      case Field::content:
        choice_.content = bytes;
        break;
      case Field::reasoning_content:
        choice_.reasoning_content = bytes;
        break;
      case Field::reasoning:
        choice_.reasoning = bytes;
        break;
      case Field::completion_tokens:
        if (value == Value::integer) completion = integer_;
        break;
      case Field::prompt_tokens:
        // A count no prompt reaches is not believed: sums of such counts could overflow.
        if (value == Value::integer && integer_unsigned_ && unsigned_value_ <= (std::uint64_t{1} << 40))
          prompt = integer_;
        break;
      default:
        break;
    }
    last_field_ = Field::none;
    return true;
  }
  bool integer(long long value, bool is_unsigned) {
    integer_ = value;
    integer_unsigned_ = is_unsigned;
    return scalar(Value::integer);
  }
  bool open(bool object) {
    const Role opened = begin_value(true, object);
    last_field_ = Field::none;
    if (depth_ < kDepth) roles_[depth_] = opened;
    ++depth_;
    return true;
  }
  bool close() {
    if (role() == Role::choice) {  // a choice's text counts once it is whole, as the DOM sees it
      content_bytes += choice_.text + choice_.content + choice_.reasoning_content + choice_.reasoning;
      if (choice_.finish) finish_reason = *choice_.finish;
    }
    --depth_;
    return true;
  }

  struct Choice {
    std::size_t text = 0, content = 0, reasoning_content = 0, reasoning = 0;
    std::optional<std::string> finish;
  };
  std::array<Role, kDepth> roles_{};
  std::size_t depth_ = 0;
  Field field_ = Field::none, last_field_ = Field::none;
  Choice choice_;
  bool error_key_ = false, object_is_error_ = false;
  string_t* text_ = nullptr;
  long long integer_ = 0;
  bool integer_unsigned_ = false;
  std::uint64_t unsigned_value_ = 0;
};

}  // namespace

StreamChunk interpret_stream_chunk(std::string_view data) {
  StreamChunk chunk;
  std::string_view trimmed = data;
  while (!trimmed.empty() && (trimmed.back() == ' ' || trimmed.back() == '\n')) trimmed.remove_suffix(1);
  if (trimmed == "[DONE]") {
    chunk.kind = ChunkKind::done;
    return chunk;
  }
  ChunkScan scan;
  if (!nlohmann::json::sax_parse(trimmed, &scan) || scan.not_object) {
    chunk.kind = ChunkKind::malformed;
    chunk.error_message = "malformed JSON in stream: " + cut(trimmed, 120);
    return chunk;
  }
  if (scan.is_error()) {  // rare: its message from the document
    chunk.kind = ChunkKind::error;
    chunk.error_message = message_of(nlohmann::json::parse(trimmed, nullptr, /*allow_exceptions=*/false));
    if (chunk.error_message.empty()) chunk.error_message = cut(trimmed, 200);
    return chunk;
  }
  chunk.completion_tokens = scan.completion;
  chunk.prompt_tokens = scan.prompt;
  chunk.content_bytes = scan.content_bytes;
  chunk.finish_reason = std::move(scan.finish_reason);
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
