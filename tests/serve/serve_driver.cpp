// Test and benchmark driver of the serve phase without MPI: runs run_serve_phase from flags and prints JSON.
//   k25_serve_driver --endpoint URL [--api chat|completions] [--concurrency 1,64] [--requests N] ...
// stdout: {"serve": ServeReport, "journal": [levels as the sink saw them], "cpu_s": client CPU seconds}
// Exit codes as k25comm: 3 when --check finds the endpoint unreachable.

#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "process_cpu.hpp"
#include "serve/curl_global.hpp"
#include "serve/serve_phase.hpp"

namespace {

std::vector<int> parse_int_list(const std::string& text) {
  std::vector<int> values;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) values.push_back(std::stoi(item));
  return values;
}

}  // namespace

int main(int argc, char** argv) {
  k25::ServeSpec spec;
  std::string api = "completions", concurrency = "1";
  bool check = false, no_ignore_eos = false;
  CLI::App app("k25comm serve-phase driver (tests, benchmarks)");
  app.add_option("--endpoint", spec.endpoint);
  app.add_option("--api", api)->check(CLI::IsMember({"chat", "completions"}));
  app.add_option("--model", spec.model);
  app.add_option("--api-key", spec.api_key);
  app.add_option("--concurrency", concurrency, "comma-separated levels");
  app.add_option("--requests", spec.requests);
  app.add_option("--warmup", spec.warmup_requests);
  app.add_option("--max-tokens", spec.max_tokens);
  app.add_option("--prompt-tokens", spec.prompt_tokens);
  app.add_option("--request-rate", spec.request_rate);
  app.add_option("--connect-timeout", spec.connect_timeout_s);
  app.add_option("--idle-timeout", spec.idle_timeout_s);
  app.add_option("--request-timeout", spec.request_timeout_s);
  app.add_flag("--no-ignore-eos", no_ignore_eos);
  app.add_flag("--check", check, "fail with exit 3 when the endpoint is unreachable, before measuring");
  CLI11_PARSE(app, argc, argv);
  spec.api = api == "chat" ? k25::ServeApi::chat : k25::ServeApi::completions;
  spec.concurrency = parse_int_list(concurrency);
  spec.ignore_eos = !no_ignore_eos;
  try {
    k25::CurlGlobal curl;
    if (check) k25::check_endpoint_reachable(spec);
    nlohmann::json journal = nlohmann::json::array();
    const double cpu_before = process_cpu_seconds();
    const k25::ServeReport report =
        k25::run_serve_phase(spec, [&](const k25::ServeReport& header, const k25::ServeLevel& level) {
          journal.push_back(
              {{"endpoint", header.endpoint}, {"levels_before", header.levels.size()}, {"level", level}});
        });
    const double cpu_s = process_cpu_seconds() - cpu_before;
    std::cout << nlohmann::json{{"serve", report}, {"journal", journal}, {"cpu_s", cpu_s}}.dump(1)
              << std::endl;
    return 0;
  } catch (const k25::Error& error) {
    std::cerr << "k25_serve_driver: " << error.what() << std::endl;
    return static_cast<int>(error.code());
  }
}
