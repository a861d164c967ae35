// What the serve phase sends: the endpoint URLs and the JSON body of one streaming request.
#pragma once

#include <string>

#include "config/run_config.hpp"

namespace k25 {

// Base URL + API path. The base may end in "/" or "/v1" (both accepted): "http://h:8000" and
// "http://h:8000/v1/" both give "http://h:8000/v1/completions".
std::string endpoint_url(const std::string& base, const std::string& v1_path);
std::string generation_url(const ServeSpec& spec);  // /v1/completions or /v1/chat/completions

// What to add to an HTTP 404 answer to a generation request: the URL that was posted to and the other API to
// try (the URL without its user-info): " from POST http://h:8000/v1/completions: the server has no such
// route; if it serves the other API, try --api chat (serve.api); else check --endpoint's base URL".
std::string not_found_hint(const ServeSpec& spec);

// What to check when the endpoint answers 401 or 403, by where the key came from (none, --api-key or
// serve.api_key, env:NAME), naming no key: "the bearer token sent was the value of OPENAI_API_KEY
// (serve.api_key: env:OPENAI_API_KEY); check that it is valid for this server".
std::string credentials_hint(const ServeSpec& spec);

// The end of a 401 or 403 request's message: " from POST URL (without user-info): " + credentials_hint.
std::string refused_credentials_hint(const ServeSpec& spec);

// A prompt of roughly `tokens` tokens, built without a tokenizer: common English words that are one token in
// the usual BPE vocabularies, so the real count is within about 10 % for most models. It starts with the
// request id so that no two requests share a cached prefix.
std::string approximate_prompt(int tokens, long long request_id);

// The JSON body: model, prompt or messages, max_tokens, "stream": true, stream_options.include_usage,
// and "ignore_eos" when spec.ignore_eos (a vLLM/SGLang extension).
std::string streaming_request_body(const ServeSpec& spec, const std::string& model, long long request_id);

}  // namespace k25
