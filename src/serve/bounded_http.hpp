// One bounded HTTP request outside the streaming client (GET /v1/models, the engine's info and profiler
// routes): connect within the spec's connect timeout, the whole answer within a given time.
#pragma once

#include <string>

#include <curl/curl.h>

#include "config/run_config.hpp"

namespace k25 {

struct HttpAnswer {
  CURLcode result = CURLE_OK;
  long status = 0;      // 0: no HTTP answer
  std::string body;     // its first 1 MiB; without the key, and without any secret when not a 2xx answer
  std::string message;  // libcurl's error text (or "No error"), without secrets (common/redaction.hpp)
};

// GET `url` when `post_body` is null, else POST it (empty: no body; else as application/json), with the
// spec's bearer token. Never throws for what the server does.
HttpAnswer bounded_http(const ServeSpec& spec, const std::string& url, const std::string* post_body,
                        double answer_within_s);

}  // namespace k25
