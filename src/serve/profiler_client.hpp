// The engine's own profiler over HTTP (docs/live-profile.md): which engine a server is, and POST
// /start_profile and /stop_profile in the form vLLM or SGLang takes them.
#pragma once

#include <optional>
#include <string>

#include "config/run_config.hpp"

namespace k25 {

struct EngineIdentity {
  ServeEngine engine = ServeEngine::automatic;  // automatic: not told (neither engine's info route answered)
  std::string version;                          // as the server gave it; empty when unknown
  std::string source;                           // how it was told: "serve.engine", "GET /version", ...
  // serve.engine given, and the server's info route says it is the other engine: what it said ("the server
  // answers GET /get_server_info as SGLang 0.5.2, not vllm (serve.engine / --engine)"); empty otherwise.
  std::string conflict;
};

// What the server's info routes say: SGLang when GET /get_server_info answers a JSON object with "version",
// vLLM when GET /version does; else automatic. spec.engine, when given, is the engine, and `conflict` says
// where the server said otherwise. Each GET is bounded by the connect timeout plus 10 s.
EngineIdentity identify_engine(const ServeSpec& spec);

// One answer of the profiler: accepted (HTTP 200), or refused with the status and body, or not answered.
struct ProfilerAnswer {
  bool accepted = false;
  long status = 0;   // 0: no HTTP answer
  std::string text;  // "HTTP 404: {"detail":"Not Found"}" or the transport's error
};

// POST /start_profile: vLLM without a body (its steps are set at server start); SGLang (and an engine not
// told) with {"output_dir", "num_steps", "activities": ["CPU", "GPU"], "profile_by_stage": false,
// "merge_profiles": false}. Bounded by the connect timeout and request_timeout_s.
ProfilerAnswer start_profiler(const ServeSpec& spec, const EngineIdentity& engine);
// POST /stop_profile (no body). vLLM flushes its traces before it answers: bounded by request_timeout_s.
ProfilerAnswer stop_profiler(const ServeSpec& spec);

// The one line that says what to do when the engine refused to profile: the exact restart option of the
// engine found (vLLM 0.13 and later: --profiler-config; before: VLLM_TORCH_PROFILER_DIR; SGLang: output_dir)
// and that the replay needs no restart.
std::string profiler_refusal_line(const EngineIdentity& engine, const std::string& profile_dir,
                                  const ProfilerAnswer& answer);

// Whether a vLLM of this version takes --profiler-config (0.13 and later): "0.13.0" true, "0.12.1" false;
// nullopt when the version does not read as MAJOR.MINOR.
std::optional<bool> vllm_has_profiler_config(const std::string& version);

}  // namespace k25
