// Soak driver of the serve phase: rounds of one closed-loop level (256 streams by default) against an
// endpoint for a set time; counts client-side errors and records the process's resident memory over the run.
//   k25_serve_soak --endpoint URL [--seconds 180] [--concurrency 256] [--requests-per-round 2048] ...
// stdout: one JSON object (rounds, requests, completed, failed, errors by class, rss_kb start/baseline/end).
// Exit 1 when a request failed or resident memory grew past --max-rss-growth-mb after the first round.
#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "serve/curl_global.hpp"
#include "serve/serve_phase.hpp"

namespace {

// VmRSS of this process in KiB, from /proc/self/status (0 where it cannot be read).
long resident_kb() {
  std::ifstream status("/proc/self/status");
  std::string key;
  long value = 0;
  while (status >> key) {
    if (key == "VmRSS:") {
      status >> value;
      return value;
    }
    status.ignore(1 << 20, '\n');
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  k25::ServeSpec spec;
  double seconds = 180;
  int concurrency = 256;
  double max_growth_mb = 16;
  spec.requests = 2048;
  spec.max_tokens = 16;
  spec.prompt_tokens = 32;
  spec.warmup_requests = 0;
  CLI::App app("k25comm serve-phase soak driver");
  app.add_option("--endpoint", spec.endpoint)->required();
  app.add_option("--seconds", seconds, "how long to keep the streams going");
  app.add_option("--concurrency", concurrency, "streams in flight");
  app.add_option("--requests-per-round", spec.requests, "counted requests of one level (one round)");
  app.add_option("--max-tokens", spec.max_tokens);
  app.add_option("--prompt-tokens", spec.prompt_tokens);
  app.add_option("--max-rss-growth-mb", max_growth_mb, "allowed growth of VmRSS after the first round");
  CLI11_PARSE(app, argc, argv);
  spec.concurrency = {concurrency};

  const long rss_start = resident_kb();
  long rss_baseline = 0, rss_peak = 0;
  int rounds = 0;
  long long requests = 0, completed = 0, failed = 0, output_tokens = 0;
  std::map<std::string, long long> errors;
  std::map<std::string, std::string> error_examples;
  try {
    k25::CurlGlobal curl;
    const auto started = std::chrono::steady_clock::now();
    auto elapsed = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    };
    while (rounds == 0 || elapsed() < seconds) {
      const k25::ServeReport report =
          k25::run_serve_phase(spec, [](const k25::ServeReport&, const k25::ServeLevel&) {});
      for (const auto& level : report.levels) {
        requests += level.requests;
        completed += level.completed;
        failed += level.failed;
        output_tokens += level.output_tokens;
        for (const auto& [kind, count] : level.errors) errors[kind] += count;
        for (const auto& [kind, text] : level.error_examples) error_examples.emplace(kind, text);
      }
      ++rounds;
      const long rss = resident_kb();
      if (rounds == 1) rss_baseline = rss;
      rss_peak = std::max(rss_peak, rss);
      std::cerr << "soak: round " << rounds << " at " << static_cast<int>(elapsed()) << " s: " << completed
                << "/" << requests << " completed, " << failed << " failed, VmRSS " << rss << " KiB"
                << std::endl;
    }
    const long rss_end = resident_kb();
    const double growth_mb = static_cast<double>(rss_end - rss_baseline) / 1024.0;
    const bool ok = failed == 0 && completed == requests && growth_mb <= max_growth_mb;
    std::cout << nlohmann::json{{"ok", ok},
                                {"seconds", elapsed()},
                                {"concurrency", concurrency},
                                {"rounds", rounds},
                                {"requests", requests},
                                {"completed", completed},
                                {"failed", failed},
                                {"output_tokens", output_tokens},
                                {"errors", errors},
                                {"error_examples", error_examples},
                                {"rss_kb",
                                 {{"start", rss_start},
                                  {"after_first_round", rss_baseline},
                                  {"peak", rss_peak},
                                  {"end", rss_end}}},
                                {"rss_growth_mb_after_first_round", growth_mb}}
                     .dump(1)
              << std::endl;
    return ok ? 0 : 1;
  } catch (const k25::Error& error) {
    std::cerr << "k25_serve_soak: " << error.what() << std::endl;
    return static_cast<int>(error.code());
  }
}
