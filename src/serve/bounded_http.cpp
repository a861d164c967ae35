// A single libcurl easy request with the serve phase's connect timeout and a total bound.
#include "serve/bounded_http.hpp"

#include <cmath>

#include "common/redaction.hpp"
#include "serve/curl_handles.hpp"

namespace k25 {

HttpAnswer bounded_http(const ServeSpec& spec, const std::string& url, const std::string* post_body,
                        double answer_within_s) {
  HttpAnswer answer;
  CurlEasy easy = make_curl_easy();
  CurlHeaderList headers;
  if (!spec.api_key.empty()) headers.append("Authorization: Bearer " + spec.api_key);
  if (post_body != nullptr && !post_body->empty()) headers.append("Content-Type: application/json");
  char error_buffer[CURL_ERROR_SIZE] = {};
  const auto on_body = +[](char* data, std::size_t size, std::size_t count, void* user) -> std::size_t {
    auto* body = static_cast<std::string*>(user);
    if (body->size() < (1u << 20)) body->append(data, size * count);
    return size * count;
  };
  const long connect_ms = static_cast<long>(std::ceil(spec.connect_timeout_s * 1000.0));
  const long answer_ms = static_cast<long>(std::ceil(answer_within_s * 1000.0));
  curl_easy_setopt(easy.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(easy.get(), CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(easy.get(), CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(easy.get(), CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(easy.get(), CURLOPT_WRITEDATA, &answer.body);
  curl_easy_setopt(easy.get(), CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(easy.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy.get(), CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
  curl_easy_setopt(easy.get(), CURLOPT_TIMEOUT_MS, connect_ms + answer_ms);
  if (post_body != nullptr) {
    curl_easy_setopt(easy.get(), CURLOPT_POST, 1L);
    curl_easy_setopt(easy.get(), CURLOPT_POSTFIELDS, post_body->c_str());
    curl_easy_setopt(easy.get(), CURLOPT_POSTFIELDSIZE, static_cast<long>(post_body->size()));
  }
  answer.result = curl_easy_perform(easy.get());
  curl_easy_getinfo(easy.get(), CURLINFO_RESPONSE_CODE, &answer.status);
  // What callers may quote in messages, notes and reports: without the key (should the server have echoed it)
  // or a URL's user-info (libcurl's own messages).
  const std::span<const std::string> key(&spec.api_key, 1);
  answer.message =
      redact_text(error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(answer.result), key);
  // An error answer is quoted in notes and messages (a profiler's refusal): it may echo the request's
  // Authorization header. A 2xx answer is data (JSON a caller parses) and keeps its form but for the key.
  const bool error_answer = answer.status < 200 || answer.status >= 300;
  if (error_answer || (!spec.api_key.empty() && answer.body.find(spec.api_key) != std::string::npos))
    answer.body = redact_text(answer.body, key);
  return answer;
}

}  // namespace k25
