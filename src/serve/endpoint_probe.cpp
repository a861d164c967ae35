// One bounded GET of /v1/models: used to fail fast on an unreachable endpoint and to find the served model.
#include "serve/endpoint_probe.hpp"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "serve/curl_handles.hpp"
#include "serve/request_body.hpp"

namespace k25 {
namespace {

struct ProbeAnswer {
  CURLcode result = CURLE_OK;
  long status = 0;
  std::string body;
  std::string message;
};

ProbeAnswer get_models(const ServeSpec& spec) {
  ProbeAnswer answer;
  CurlEasy easy = make_curl_easy();
  CurlHeaderList headers;
  if (!spec.api_key.empty()) headers.append("Authorization: Bearer " + spec.api_key);
  const std::string url = endpoint_url(spec.endpoint, "/v1/models");
  char error_buffer[CURL_ERROR_SIZE] = {};
  const auto on_body = +[](char* data, std::size_t size, std::size_t count, void* user) -> std::size_t {
    auto* body = static_cast<std::string*>(user);
    if (body->size() < (1u << 20)) body->append(data, size * count);
    return size * count;
  };
  const long connect_ms = static_cast<long>(std::ceil(spec.connect_timeout_s * 1000.0));
  curl_easy_setopt(easy.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(easy.get(), CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(easy.get(), CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(easy.get(), CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(easy.get(), CURLOPT_WRITEDATA, &answer.body);
  curl_easy_setopt(easy.get(), CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(easy.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy.get(), CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
  curl_easy_setopt(easy.get(), CURLOPT_TIMEOUT_MS, connect_ms + 10000L);
  answer.result = curl_easy_perform(easy.get());
  curl_easy_getinfo(easy.get(), CURLINFO_RESPONSE_CODE, &answer.status);
  answer.message = error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(answer.result);
  return answer;
}

}  // namespace

void check_endpoint_reachable(const ServeSpec& spec) {
  const std::string url = endpoint_url(spec.endpoint, "/v1/models");
  if (spec.endpoint.empty())
    throw RuntimeFault("serve endpoint is not configured (serve.endpoint / --endpoint)");
  const ProbeAnswer answer = get_models(spec);
  if (answer.status == 0)
    throw RuntimeFault(fmt::format("serve endpoint {} is unreachable: {}", url, answer.message), "GET " + url,
                       __FILE__, __LINE__);
}

std::string discover_model(const ServeSpec& spec) {
  const ProbeAnswer answer = get_models(spec);
  if (answer.status != 200) return {};
  const nlohmann::json j = nlohmann::json::parse(answer.body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return {};
  const auto data = j.find("data");
  if (data == j.end() || !data->is_array() || data->empty() || !data->front().is_object()) return {};
  const auto id = data->front().find("id");
  return id != data->front().end() && id->is_string() ? id->get<std::string>() : std::string{};
}

}  // namespace k25
