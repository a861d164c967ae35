// One profiled window of a serve level and the JSON of the serve report's profile part.
#include "serve/profile_window.hpp"

#include <chrono>

#include <fmt/format.h>

#include "serve/level_metrics.hpp"
#include "serve/profiler_client.hpp"
#include "serve/streaming_client.hpp"

namespace k25 {
namespace {

double unix_now_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

ProfileWindow run_profile_window(const ServeSpec& spec, const EngineIdentity& engine, StreamingClient& client,
                                 int concurrency) {
  ProfileWindow window;
  window.concurrency = concurrency;
  window.started_unix_s = unix_now_s();
  const ProfilerAnswer start = start_profiler(spec, engine);
  if (!start.accepted) {
    window.status = ProfileWindowStatus::refused;
    window.message = profiler_refusal_line(engine, spec.profile_dir, start);
    window.stopped_unix_s = unix_now_s();
    return window;
  }
  BatchPlan plan;
  plan.concurrency = concurrency;
  plan.count = concurrency;
  const BatchResult batch = client.run(plan);
  const ProfilerAnswer stop = stop_profiler(spec);
  window.stopped_unix_s = unix_now_s();
  const ServeLevel figures = summarize_level(concurrency, batch.records, batch.window);
  window.requests = figures.requests;
  window.completed = figures.completed;
  window.failed = figures.failed;
  window.tpot_ms = figures.tpot_ms;
  window.ttft_ms = figures.ttft_ms;
  if (!stop.accepted)  // SGLang stops by itself after num_steps and then refuses the stop: files follow
                       // anyway
    window.message = fmt::format(
        "profile C={}: /stop_profile was refused ({}); the files the profiler wrote are read all the same",
        concurrency, stop.text);
  if (batch.interrupted) {
    window.status = ProfileWindowStatus::failed;
    window.message = "profile: interrupted by a signal";
  } else {
    window.status = ProfileWindowStatus::recorded;
  }
  return window;
}

void to_json(nlohmann::json& j, const ProfileWindow& w) {
  j = nlohmann::json{{"concurrency", w.concurrency},
                     {"status", to_string(w.status)},
                     {"message", w.message},
                     {"requests", w.requests},
                     {"completed", w.completed},
                     {"failed", w.failed},
                     {"tpot_ms", stats_or_null(w.tpot_ms)},
                     {"ttft_ms", stats_or_null(w.ttft_ms)},
                     {"started_unix_s", w.started_unix_s},
                     {"stopped_unix_s", w.stopped_unix_s}};
}

void from_json(const nlohmann::json& j, ProfileWindow& w) {
  w.concurrency = j.at("concurrency").get<int>();
  w.status = enum_from_name_or_throw<ProfileWindowStatus>("profile window status", j.value("status", ""));
  w.message = j.value("message", "");
  w.requests = j.value("requests", 0);
  w.completed = j.value("completed", 0);
  w.failed = j.value("failed", 0);
  w.tpot_ms = stats_from_json_or_null(j, "tpot_ms");
  w.ttft_ms = stats_from_json_or_null(j, "ttft_ms");
  w.started_unix_s = j.value("started_unix_s", 0.0);
  w.stopped_unix_s = j.value("stopped_unix_s", 0.0);
}

void to_json(nlohmann::json& j, const ServeProfile& p) {
  j = nlohmann::json{{"asked", p.asked},
                     {"engine", p.engine},
                     {"engine_version", p.engine_version},
                     {"engine_source", p.engine_source},
                     {"engine_conflict", p.engine_conflict},
                     {"profile_dir", p.profile_dir},
                     {"steps", p.steps},
                     {"refusal", p.refusal},
                     {"windows", p.windows}};
}

void from_json(const nlohmann::json& j, ServeProfile& p) {
  p.asked = j.value("asked", false);
  p.engine = j.value("engine", "");
  p.engine_version = j.value("engine_version", "");
  p.engine_source = j.value("engine_source", "");
  p.engine_conflict = j.value("engine_conflict", "");
  p.profile_dir = j.value("profile_dir", "");
  p.steps = j.value("steps", 0);
  p.refusal = j.value("refusal", "");
  p.windows = j.value("windows", std::vector<ProfileWindow>{});
}

}  // namespace k25
