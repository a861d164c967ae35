// Reachability check and model discovery of a serving endpoint (GET /v1/models).
#pragma once

#include <string>

#include "config/run_config.hpp"

namespace k25 {

// GETs <endpoint>/v1/models within the connect timeout (plus 10 s for the answer). Any HTTP answer, even
// 401 or 404, counts as reachable. Throws RuntimeFault (exit 3) naming the URL when nothing answers:
// connection refused, DNS failure, timeout.
void check_endpoint_reachable(const ServeSpec& spec);

// The first model id listed by <endpoint>/v1/models, or "" when it cannot be had. Never throws for HTTP
// trouble.
std::string discover_model(const ServeSpec& spec);

}  // namespace k25
