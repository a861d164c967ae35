// One bounded GET of /v1/models: used to fail fast on an unreachable endpoint and to find the served model.
#include "serve/endpoint_probe.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "common/redaction.hpp"
#include "serve/bounded_http.hpp"
#include "serve/request_body.hpp"
#include "serve/stream_chunk.hpp"

namespace k25 {
namespace {

HttpAnswer get_models(const ServeSpec& spec) {
  return bounded_http(spec, endpoint_url(spec.endpoint, "/v1/models"), nullptr, 10.0);
}

}  // namespace

void check_endpoint_reachable(const ServeSpec& spec) {
  // libcurl gets the URL as given; a message shows it without its user-info.
  const std::string shown = redact_url(endpoint_url(spec.endpoint, "/v1/models"));
  if (spec.endpoint.empty())
    throw RuntimeFault("serve endpoint is not configured (serve.endpoint / --endpoint)");
  if (!spec.api_key_env.empty() && spec.api_key.empty())
    throw UsageError(fmt::format(
        "serve.api_key: env:{0} names an environment variable that is not set (or is empty) where rank 0 runs; export {0} there, or give the key another way (docs/serve.md#secrets)",
        spec.api_key_env));
  const HttpAnswer answer = get_models(spec);
  if (answer.status == 0)
    throw RuntimeFault(fmt::format("serve endpoint {} is unreachable: {}", shown, answer.message),
                       "GET " + shown, __FILE__, __LINE__);
  if (answer.status == 401 || answer.status == 403)
    throw RuntimeFault(fmt::format("serve endpoint {} refused the request: HTTP {}: {}; {}", shown,
                                   answer.status, error_body_message(answer.body), credentials_hint(spec)),
                       "GET " + shown, __FILE__, __LINE__);
}

std::string discover_model(const ServeSpec& spec) {
  const HttpAnswer answer = get_models(spec);
  if (answer.status != 200) return {};
  const nlohmann::json j = nlohmann::json::parse(answer.body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return {};
  const auto data = j.find("data");
  if (data == j.end() || !data->is_array() || data->empty() || !data->front().is_object()) return {};
  const auto id = data->front().find("id");
  return id != data->front().end() && id->is_string() ? id->get<std::string>() : std::string{};
}

}  // namespace k25
