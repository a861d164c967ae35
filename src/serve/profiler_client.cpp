// HTTP calls to the engine's profiler routes and the line that explains a refusal.
#include "serve/profiler_client.hpp"

#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "serve/bounded_http.hpp"

namespace k25 {
namespace {

// The server's root URL + path: the endpoint without a trailing "/" or "/v1" (the profiler routes are not
// under /v1).
std::string server_url(const std::string& endpoint, const std::string& path) {
  std::string url = endpoint;
  while (!url.empty() && url.back() == '/') url.pop_back();
  if (url.size() >= 3 && url.compare(url.size() - 3, 3, "/v1") == 0) url.resize(url.size() - 3);
  return url + path;
}

HttpAnswer http_call(const ServeSpec& spec, const std::string& path, const std::string* post_body,
                     double total_s) {
  return bounded_http(spec, server_url(spec.endpoint, path), post_body, total_s);
}

// The "version" string of a JSON object answer, or nullopt.
std::optional<std::string> version_of(const HttpAnswer& answer) {
  if (answer.status != 200) return std::nullopt;
  const nlohmann::json j = nlohmann::json::parse(answer.body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  const auto version = j.find("version");
  if (version == j.end() || !version->is_string()) return std::nullopt;
  return version->get<std::string>();
}

// "vLLM", "SGLang" as the projects write their names.
const char* engine_title(ServeEngine engine) {
  switch (engine) {
    case ServeEngine::vllm:
      return "vLLM";
    case ServeEngine::sglang:
      return "SGLang";
    case ServeEngine::automatic:
      break;
  }
  return "an engine not told";
}

std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  if (text.size() > 300) text = text.substr(0, 300) + "...";
  return text;
}

ProfilerAnswer profiler_answer(const HttpAnswer& http) {
  ProfilerAnswer answer;
  const bool answered = http.result == CURLE_OK;
  answer.status = answered ? http.status : 0;
  answer.accepted = answered && http.status == 200;
  answer.text = answered ? fmt::format("HTTP {}: {}", http.status, one_line(http.body))
                         : "no HTTP answer: " + http.message;
  return answer;
}

}  // namespace

EngineIdentity identify_engine(const ServeSpec& spec) {
  EngineIdentity server{ServeEngine::automatic, "",
                        "neither GET /get_server_info nor GET /version answered with a version", ""};
  if (const auto sglang = version_of(http_call(spec, "/get_server_info", nullptr, 10)))
    server = {ServeEngine::sglang, *sglang, "GET /get_server_info", ""};
  else if (const auto vllm = version_of(http_call(spec, "/version", nullptr, 10)))
    server = {ServeEngine::vllm, *vllm, "GET /version", ""};
  if (spec.engine == ServeEngine::automatic) return server;
  EngineIdentity given{spec.engine, "", "serve.engine", ""};
  if (server.engine == spec.engine) {
    given.version = server.version;
  } else if (server.engine != ServeEngine::automatic) {
    given.conflict =
        fmt::format("the server answers {} as {} {}, not {} (serve.engine / --engine)", server.source,
                    engine_title(server.engine), server.version, to_string(spec.engine));
  }
  return given;
}

ProfilerAnswer start_profiler(const ServeSpec& spec, const EngineIdentity& engine) {
  std::string body;  // vLLM: none
  if (engine.engine != ServeEngine::vllm) {
    nlohmann::json request{{"num_steps", spec.profile_steps},
                           {"activities", {"CPU", "GPU"}},
                           {"profile_by_stage", false},
                           {"merge_profiles", false}};
    if (!spec.profile_dir.empty()) request["output_dir"] = spec.profile_dir;
    body = request.dump();
  }
  return profiler_answer(http_call(spec, "/start_profile", &body, spec.request_timeout_s));
}

ProfilerAnswer stop_profiler(const ServeSpec& spec) {
  const std::string body;
  return profiler_answer(http_call(spec, "/stop_profile", &body, spec.request_timeout_s));
}

std::optional<bool> vllm_has_profiler_config(const std::string& version) {
  int major = 0, minor = 0;
  if (std::sscanf(version.c_str(), "%d.%d", &major, &minor) != 2) return std::nullopt;
  return major > 0 || minor >= 13;
}

std::string profiler_refusal_line(const EngineIdentity& engine, const std::string& profile_dir,
                                  const ProfilerAnswer& answer) {
  const std::string dir = profile_dir.empty() ? "DIR" : profile_dir;
  const std::string config_option =
      fmt::format("--profiler-config '{{\"profiler\": \"torch\", \"torch_profiler_dir\": \"{}\"}}'", dir);
  const std::string env_option = fmt::format("VLLM_TORCH_PROFILER_DIR={} in its environment", dir);
  std::string what;
  if (engine.engine == ServeEngine::vllm) {
    const std::optional<bool> new_option = vllm_has_profiler_config(engine.version);
    if (new_option && *new_option)
      what = fmt::format(
          "vLLM {} serves its profiler routes only when started with a profiler: restart it with {}",
          engine.version, config_option);
    else if (new_option)
      what = fmt::format(
          "vLLM {} serves its profiler routes only when started with a profiler: restart it with {}",
          engine.version, env_option);
    else
      what = fmt::format(
          "vLLM serves its profiler routes only when started with a profiler: restart it with {} (0.13 and later) or {} (before)",
          config_option, env_option);
  } else if (engine.engine == ServeEngine::sglang) {
    what = fmt::format(
        "SGLang needs no restart option: it writes where the request's output_dir says ({}), which must exist and be writable by the server",
        dir);
  } else {
    what = fmt::format(
        "The engine was not told (serve.engine / --engine); vLLM: restart it with {} (0.13 and later) or {} (before); SGLang: output_dir {} must be writable by the server",
        config_option, env_option, dir);
  }
  const std::string conflict = engine.conflict.empty() ? "" : fmt::format(" Mind that {}.", engine.conflict);
  return fmt::format(
      "profile: the server refused /start_profile ({}); the serve phase went on without profiling. {}, and give k25comm --profile-dir {}. The replay needs no restart.{}",
      answer.text, what, dir, conflict);
}

}  // namespace k25
