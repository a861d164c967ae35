// Runs the serve phase level by level and assembles ServeReport, handing each level to the journal as it
// ends.
#include "serve/serve_phase.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/interrupt.hpp"
#include "common/redaction.hpp"
#include "serve/level_metrics.hpp"
#include "serve/profiler_client.hpp"
#include "serve/streaming_client.hpp"

namespace k25 {
namespace {

int counted_requests(const ServeSpec& spec, int concurrency) {
  return spec.requests > 0 ? spec.requests : std::max(8, 4 * concurrency);
}

std::string combined_source(const std::string& so_far, const std::string& level) {
  if (so_far.empty()) return level;
  return so_far == level ? so_far : "mixed";
}

ServeProfile profile_header(const ServeSpec& spec, const EngineIdentity& engine) {
  ServeProfile profile;
  profile.asked = true;
  profile.engine = to_string(engine.engine);
  profile.engine_version = engine.version;
  profile.engine_source = engine.source;
  profile.engine_conflict = engine.conflict;
  profile.profile_dir = spec.profile_dir;
  profile.steps = spec.profile_steps;
  return profile;
}

}  // namespace

ServeReport run_serve_phase(const ServeSpec& spec, const ServeLevelSink& on_level,
                            const ServeProgressSink& on_progress, const ProfileWindowSink& on_window,
                            const ProfileStartSink& on_profile_start) {
  ServeReport report;
  report.endpoint = redact_url(spec.endpoint);  // recorded and printed without its user-info
  report.api = to_string(spec.api);
  report.model = spec.model;
  report.ttft_definition =
      "request start to the first chunk carrying generated text (a chat role-only chunk does not count)";
  report.e2el_definition = "request start to the last chunk carrying generated text";
  report.clock =
      "steady clock on rank 0, read when libcurl hands over the bytes (request start: just before the request is handed to libcurl)";
  report.prompt_tokens = spec.prompt_tokens;
  report.max_tokens = spec.max_tokens;
  report.ignore_eos = spec.ignore_eos;
  report.request_rate = spec.request_rate;
  report.percentiles = spec.percentiles;
  if (spec.endpoint.empty()) {
    report.skipped_reason = "no endpoint configured (serve.endpoint / --endpoint)";
    return report;
  }
  if (report.model.empty()) report.model = discover_model(spec);

  StreamingClient client(spec, report.model);
  EngineIdentity engine;
  if (spec.profile.any()) {
    engine = identify_engine(spec);
    report.profile = profile_header(spec, engine);
    if (on_profile_start) on_profile_start(report.profile);
  }
  std::uint64_t seed = 42;
  for (const int concurrency : spec.concurrency) {
    if (concurrency <= 0) continue;
    if (spec.warmup_requests > 0) {
      BatchPlan warmup;
      warmup.concurrency = std::min(concurrency, spec.warmup_requests);
      warmup.count = spec.warmup_requests;
      warmup.warmup = true;
      if (client.run(warmup).interrupted) {
        report.stopped_reason =
            fmt::format("{}, before concurrency {}", interruption_reason(interrupt_signal()), concurrency);
        break;
      }
    }
    BatchPlan plan;
    plan.concurrency = concurrency;
    plan.count = counted_requests(spec, concurrency);
    plan.rate_per_s = spec.request_rate;
    plan.seed = seed++;
    if (on_progress) {
      const SteadyTime began = SteadyClock::now();
      plan.on_progress = [&, began](int finished, int failed) {
        on_progress({concurrency, finished, failed, plan.count,
                     std::chrono::duration<double>(SteadyClock::now() - began).count()});
      };
    }
    const BatchResult batch = client.run(plan);
    ServeLevel level = summarize_level(concurrency, batch.records, batch.window, spec.percentiles);
    level.warmup_requests = std::max(spec.warmup_requests, 0);
    if (batch.interrupted) {
      // The requests that finished are measured; the level says it is partial (the ones in flight are lost).
      level.interrupted = true;
      level.planned_requests = plan.count;
      report.stopped_reason =
          fmt::format("{}, during concurrency {} ({} of {} requests completed{})",
                      interruption_reason(interrupt_signal()), concurrency, level.completed, plan.count,
                      level.completed > 0 ? ", kept as a partial level" : "");
      if (level.completed == 0) break;  // nothing measured at this level
    }
    if (level.completed > 0)
      report.token_count_source = combined_source(report.token_count_source, level.token_count_source);
    if (on_level) on_level(report, level);
    report.levels.push_back(std::move(level));
    if (batch.interrupted) break;
    if (spec.profile.covers(concurrency) && report.profile.refusal.empty()) {
      ProfileWindow window = run_profile_window(spec, engine, client, concurrency);
      if (window.status == ProfileWindowStatus::refused) report.profile.refusal = window.message;
      if (on_window) on_window(window);
      report.profile.windows.push_back(std::move(window));
    }
  }
  report.ran = true;
  return report;
}

}  // namespace k25
