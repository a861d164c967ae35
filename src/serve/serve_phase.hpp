// The serve phase: decode latency of an OpenAI-compatible endpoint at each configured concurrency level.
#pragma once

#include <functional>

#include "config/run_config.hpp"
#include "serve/endpoint_probe.hpp"
#include "serve/serve_result.hpp"

namespace k25 {

// Journal callback, called as each level ends: `header` is the report so far (metadata and the levels before
// this one), `level` the one just measured.
using ServeLevelSink = std::function<void(const ServeReport& header, const ServeLevel& level)>;

// Journal callback for a profiled window, called as it ends (serve.profile): the live profile reads the
// window's files there, before the next level starts.
using ProfileWindowSink = std::function<void(const ProfileWindow& window)>;

// Called once with serve.profile, after the engine was told and before any request (what to say at the
// start).
using ProfileStartSink = std::function<void(const ServeProfile& profile)>;

// Where a level's counted requests stand while it runs.
struct LevelProgress {
  int concurrency = 0;
  int finished = 0;  // completed or failed
  int failed = 0;
  int total = 0;         // counted requests of the level
  double elapsed_s = 0;  // since the counted requests began
};
// Called as requests finish and at least every 100 ms while a level runs (the caller decides what to print).
using ServeProgressSink = std::function<void(const LevelProgress& progress)>;

// Rank 0 only. Needs a live CurlGlobal. For each concurrency level C in spec.concurrency: warm-up requests
// (spec.warmup_requests, at most C at once, not counted), then spec.requests counted requests (0: max(8, 4
// C)), closed loop at C in flight, or Poisson arrivals at spec.request_rate capped at C in flight. With
// spec.endpoint empty nothing is sent: ran = false and skipped_reason says why. Failed requests are counted
// by class, never thrown; the endpoint is not pre-checked here (call check_endpoint_reachable first). A
// signal (interrupt_signal) stops the phase with stopped_reason: the level it interrupted is kept, marked
// interrupted, when some of its requests completed (and handed to on_level like a whole one).
// With spec.profile, after each profiled level's counted requests a profile window follows (ProfileWindow:
// its requests are never the level's); the first refusal stops profiling, never the phase.
ServeReport run_serve_phase(const ServeSpec& spec, const ServeLevelSink& on_level,
                            const ServeProgressSink& on_progress = {},
                            const ProfileWindowSink& on_window = {},
                            const ProfileStartSink& on_profile_start = {});

}  // namespace k25
