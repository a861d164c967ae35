// One bounded GET of /v1/models: used to fail fast on an unreachable endpoint and to find the served model.
#include "serve/endpoint_probe.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "serve/bounded_http.hpp"
#include "serve/request_body.hpp"

namespace k25 {
namespace {

HttpAnswer get_models(const ServeSpec& spec) {
  return bounded_http(spec, endpoint_url(spec.endpoint, "/v1/models"), nullptr, 10.0);
}

}  // namespace

void check_endpoint_reachable(const ServeSpec& spec) {
  const std::string url = endpoint_url(spec.endpoint, "/v1/models");
  if (spec.endpoint.empty())
    throw RuntimeFault("serve endpoint is not configured (serve.endpoint / --endpoint)");
  const HttpAnswer answer = get_models(spec);
  if (answer.status == 0)
    throw RuntimeFault(fmt::format("serve endpoint {} is unreachable: {}", url, answer.message), "GET " + url,
                       __FILE__, __LINE__);
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
