// Fixture nights for the history tests and tools/bench-history-page, derived from one real report.json that
// k25comm wrote: read through the report reader, each night's figures, hosts, topology, NCCL version and
// start edited in the typed RunReport, written by the report module (report.json, report.md) into
// OUT/NODE/YYYY-MM-DD/.
//
// usage: k25_history_nights REPORT OUT [--nights N] [--tokens 1,2,4,...] [--modes eager,graph]
//
// Two nodes, nights from 2025-06-01 at 02:00 UTC, each figure the report's own times with a small fixed
// night-to-night variation (at most 0.4 %) and a spread (p90 / p50 - 1) of 2 %:
//   pcie-node   (topology pcie): NCCL 2.28.9 until night 8, 2.29.7 from night 9, when its allreduce bursts
//   and
//               ops become 25 % slower (the step an NCCL upgrade brings); nothing else changes
//   nvlink-node (topology nvlink): NCCL 2.28.9 throughout; on night 5 alone every figure is 40 % slower
// --tokens and --modes copy the report's results to more token counts and modes (the benchmark's page of a
// whole sweep); --nights sets the number of nights (default 12).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analysis/analyze.hpp"
#include "analysis/report_reader.hpp"
#include "report/report_files.hpp"

namespace {

using k25::PhaseResult;
using k25::RunReport;

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    items.push_back(text.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

// The same distribution with its median at `p50` and a spread of 2 %.
k25::Stats scaled(double p50) {
  return {p50 * 0.98, p50, p50 * 1.02, p50 * 1.03, p50 * 1.04, p50 * 1.005};
}

// At most 0.4 % from night to night, the same for every figure of a night.
double variation(int night) {
  return 1.0 + 0.002 * ((night * 7) % 5 - 2);
}

std::string date_of(int night) {
  // 2025-06-01 plus night - 1 days, through the C library's calendar.
  std::tm day{};
  day.tm_year = 2025 - 1900;
  day.tm_mon = 5;
  day.tm_mday = night;
  day.tm_hour = 2;
  const std::time_t t = timegm(&day);
  std::tm normal{};
  gmtime_r(&t, &normal);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d", &normal);
  return text;
}

RunReport night_of(const RunReport& base, const std::string& node, int night) {
  RunReport report = base;
  const bool pcie = node == "pcie-node";
  const std::string date = date_of(night);
  report.run.started_at = date + "T02:00:00Z";
  report.run.finished_at = date + "T02:05:00Z";
  report.run.hosts = {node};
  report.run.host_cores = {{node, std::max(report.run.ranks, 1)}};  // one rank per core: timings that count
  report.topology.kind = pcie ? "pcie" : "nvlink";
  for (auto& host : report.topology.hosts) {
    host.name = node;
    host.kind = report.topology.kind;
  }
  report.topology.nccl_version = pcie && night >= 9 ? "2.29.7" : "2.28.9";
  for (PhaseResult& result : report.results) {
    double factor = variation(night) * (pcie ? 1.0 : 0.8);
    if (pcie && night >= 9 && result.phase == k25::Phase::allreduce) factor *= 1.25;
    if (!pcie && night == 5) factor *= 1.4;
    result.step_us = scaled(result.step_us.p50 * factor);
    result.op_us = scaled(result.op_us.p50 * factor);
    result.busbw_gbps /= factor;
    result.algbw_gbps /= factor;
    result.wrong = 0;
  }
  for (auto& level : report.serve.levels) {
    const double factor = variation(night) * (!pcie && night == 5 ? 1.4 : 1.0);
    if (level.tpot_ms) level.tpot_ms = scaled(level.tpot_ms->p50 * factor);
    level.output_tokens_per_s /= factor;
  }
  k25::analyze_report(report);
  return report;
}

// The report's results copied to every token count and mode asked (the tokens and mode of each copy set).
void expand(RunReport& report, const std::vector<std::string>& tokens,
            const std::vector<std::string>& modes) {
  std::vector<PhaseResult> expanded;
  std::vector<k25::Phase> phases;
  for (const PhaseResult& r : report.results)
    if (std::find(phases.begin(), phases.end(), r.phase) == phases.end()) phases.push_back(r.phase);
  for (const k25::Phase phase : phases) {
    const PhaseResult* first = nullptr;
    for (const PhaseResult& r : report.results)
      if (r.phase == phase && first == nullptr) first = &r;
    for (const std::string& mode : modes)
      for (const std::string& count : tokens) {
        PhaseResult copy = *first;
        const int t = std::stoi(count);
        copy.tokens = copy.requested_tokens = t;
        copy.mode = k25::parse_mode(mode);
        const double grow = 1.0 + 0.01 * t;
        copy.step_us = scaled(first->step_us.p50 * grow);
        copy.op_us = scaled(first->op_us.p50 * grow);
        expanded.push_back(copy);
      }
  }
  report.results = expanded;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s REPORT OUT [--nights N] [--tokens LIST] [--modes LIST]\n", argv[0]);
    return 2;
  }
  int nights = 12;
  std::vector<std::string> tokens, modes;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--nights")
      nights = std::atoi(argv[i + 1]);
    else if (flag == "--tokens")
      tokens = split(argv[i + 1]);
    else if (flag == "--modes")
      modes = split(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  try {
    RunReport base = k25::read_report_file(argv[1]);
    if (!tokens.empty() || !modes.empty())
      expand(base, tokens.empty() ? std::vector<std::string>{"1"} : tokens,
             modes.empty() ? std::vector<std::string>{"eager"} : modes);
    for (const std::string node : {"nvlink-node", "pcie-node"})
      for (int night = 1; night <= nights; ++night) {
        const std::string dir = fmt::format("{}/{}/{}", argv[2], node, date_of(night));
        std::filesystem::create_directories(dir);
        k25::write_report_files(night_of(base, node, night), dir, false);
      }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "k25_history_nights: %s\n", e.what());
    return 1;
  }
  return 0;
}
