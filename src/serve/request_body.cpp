// Endpoint URL joining, tokenizer-free prompt construction and the streaming request's JSON body.
#include "serve/request_body.hpp"

#include <array>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/redaction.hpp"

namespace k25 {

std::string endpoint_url(const std::string& base, const std::string& v1_path) {
  std::string url = base;
  while (!url.empty() && url.back() == '/') url.pop_back();
  const std::string_view v1 = "/v1";
  std::string_view path = v1_path;
  if (url.size() >= v1.size() && std::string_view(url).substr(url.size() - v1.size()) == v1 &&
      path.substr(0, v1.size()) == v1)
    path.remove_prefix(v1.size());
  return url + std::string(path);
}

std::string generation_url(const ServeSpec& spec) {
  return endpoint_url(spec.endpoint, spec.api == ServeApi::chat ? "/v1/chat/completions" : "/v1/completions");
}

std::string not_found_hint(const ServeSpec& spec) {
  const ServeApi other = spec.api == ServeApi::chat ? ServeApi::completions : ServeApi::chat;
  return " from POST " + redact_url(generation_url(spec)) +
         ": the server has no such route; if it serves the other API, try --api " + to_string(other) +
         " (serve.api); else check --endpoint's base URL";
}

std::string credentials_hint(const ServeSpec& spec) {
  if (!spec.api_key_env.empty())
    return fmt::format(
        "the bearer token sent was the value of {0} (serve.api_key: env:{0}); check that it is valid for this server",
        spec.api_key_env);
  if (!spec.api_key.empty())
    return "the bearer token sent was --api-key's (serve.api_key); check that it is valid for this server";
  return "no bearer token was sent: give one with --api-key env:NAME (serve.api_key), which reads it from the environment variable NAME";
}

std::string refused_credentials_hint(const ServeSpec& spec) {
  return " from POST " + redact_url(generation_url(spec)) + ": " + credentials_hint(spec);
}

std::string approximate_prompt(int tokens, long long request_id) {
  static constexpr std::array<std::string_view, 16> kWords = {" the",  " of",  " and", " to",   " in", " is",
                                                              " that", " for", " it",  " with", " as", " on",
                                                              " was",  " by",  " at",  " from"};
  std::string prompt = "Request " + std::to_string(request_id) + ":";  // about 4 tokens
  for (int i = 4; i < tokens; ++i) prompt.append(kWords[static_cast<std::size_t>(i) % kWords.size()]);
  return prompt;
}

std::string streaming_request_body(const ServeSpec& spec, const std::string& model, long long request_id) {
  nlohmann::json body;
  if (!model.empty()) body["model"] = model;
  const std::string prompt = approximate_prompt(spec.prompt_tokens, request_id);
  if (spec.api == ServeApi::chat)
    body["messages"] = nlohmann::json::array({{{"role", "user"}, {"content", prompt}}});
  else
    body["prompt"] = prompt;
  body["max_tokens"] = spec.max_tokens;
  body["stream"] = true;
  body["stream_options"] = {{"include_usage", true}};
  if (spec.ignore_eos) body["ignore_eos"] = true;
  return body.dump();
}

}  // namespace k25
