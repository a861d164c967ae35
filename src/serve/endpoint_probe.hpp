// Reachability check and model discovery of a serving endpoint (GET /v1/models).
#pragma once

#include <string>

#include "config/run_config.hpp"

namespace k25 {

// GETs <endpoint>/v1/models within the connect timeout (plus 10 s for the answer). Any HTTP answer but 401
// and 403, even 404, counts as reachable. Throws RuntimeFault (exit 3) naming the URL without its user-info
// when nothing answers (connection refused, DNS failure, timeout, a bad URL) or the credentials are refused
// (401, 403: where the key came from, never the key); UsageError (exit 2) when serve.api_key is env:NAME and
// NAME is not set here.
void check_endpoint_reachable(const ServeSpec& spec);

// The first model id listed by <endpoint>/v1/models, or "" when it cannot be had. Never throws for HTTP
// trouble.
std::string discover_model(const ServeSpec& spec);

}  // namespace k25
