// OpenMetrics text of the latest figures (history_metrics.hpp).
#include "history/history_metrics.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <optional>

#include <fmt/format.h>

namespace k25 {
namespace {

// A label value or HELP text escaped as the format says: backslash, double quote (labels), newline.
std::string escaped(const std::string& text, bool quote) {
  std::string out;
  for (const char c : text) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (c == '"' && quote)
      out += "\\\"";
    else
      out += c;
  }
  return out;
}

std::string labels(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::string text;
  for (const auto& [name, value] : pairs)
    text += fmt::format("{}{}=\"{}\"", text.empty() ? "" : ",", name, escaped(value, true));
  return "{" + text + "}";
}

std::string number(double value) {
  return fmt::format("{}", value);
}

// A metric family: its metadata once, then its samples.
struct Family {
  std::string type, unit, help;
  std::vector<std::string> samples;
};

// Seconds since the epoch of an ISO 8601 UTC time ("2025-06-01T02:00:00Z", fractions ignored); nullopt when
// it does not read as one.
std::optional<double> epoch_seconds(const std::string& iso) {
  std::tm tm{};
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (std::sscanf(iso.c_str(), "%d-%d-%dT%d:%d:%d", &year, &month, &day, &hour, &minute, &second) != 6)
    return std::nullopt;
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  const std::time_t t = timegm(&tm);
  if (t == static_cast<std::time_t>(-1)) return std::nullopt;
  return static_cast<double>(t);
}

struct StatisticName {
  const char* name;  // in the metric name
  const char* unit;  // base unit, "" for none
  double scale;      // from the row's unit to the base unit
  bool summary;
  const char* help;
};

const StatisticName* statistic_name(const std::string& statistic) {
  static const std::map<std::string, StatisticName> names{
      {"burst",
       {"burst", "seconds", 1e-6, true,
        "One decode step's burst of this phase per trial, the slowest rank's time (k25comm report.json results step_us)"}},
      {"op",
       {"op", "seconds", 1e-6, true,
        "One op of this phase, the slowest rank's time (report.json results op_us)"}},
      {"busbw",
       {"bus_bandwidth", "bytes_per_second", 1e9, false,
        "Bus bandwidth as nccl-tests defines it, at the median step"}},
      {"tpot",
       {"tpot", "seconds", 1e-3, true, "Time per output token of the serving endpoint at this concurrency"}},
      {"ttft",
       {"ttft", "seconds", 1e-3, true, "Time to first token of the serving endpoint at this concurrency"}},
      {"output_throughput",
       {"output_tokens_per_second", "", 1, false,
        "Output tokens per second over the level's steady window"}}};
  const auto found = names.find(statistic);
  return found == names.end() ? nullptr : &found->second;
}

}  // namespace

std::string openmetrics_text(const std::vector<HistoryNight>& nights) {
  std::map<std::string, Family> families;  // by name: each family's samples together
  std::vector<std::string> order;
  const auto family = [&](const std::string& name, const std::string& type, const std::string& unit,
                          const std::string& help) -> Family& {
    auto [it, added] = families.try_emplace(name, Family{type, unit, help, {}});
    if (added) order.push_back(name);
    return it->second;
  };
  for (const HistoryNight& night : nights) {
    const RunRow& run = night.run;
    family("k25comm_run_info", "gauge", "", "What the node's latest k25comm night ran with (value 1)")
        .samples.push_back("k25comm_run_info" +
                           labels({{"node", run.node},
                                   {"topology", run.topology},
                                   {"gpus", run.gpus},
                                   {"driver", run.driver},
                                   {"cuda", run.cuda},
                                   {"nccl", run.nccl},
                                   {"mpi", run.mpi},
                                   {"transport", run.transport},
                                   {"k25comm_version", run.tool_version},
                                   {"k25comm_commit", run.commit}}) +
                           " 1");
    if (const auto started = epoch_seconds(run.started_at))
      family("k25comm_run_start_timestamp_seconds", "gauge", "seconds",
             "When the node's latest k25comm night started")
          .samples.push_back(fmt::format("k25comm_run_start_timestamp_seconds{} {}",
                                         labels({{"node", run.node}}), number(*started)));
    for (const FigureRow& figure : night.figures) {
      const StatisticName* stat = statistic_name(figure.key.statistic);
      if (stat == nullptr || !std::isfinite(figure.value)) continue;
      const bool serve = figure.key.phase == "serve";
      std::string name = fmt::format("k25comm_{}_{}", figure.key.phase, stat->name);
      if (*stat->unit != '\0') name += std::string("_") + stat->unit;
      std::vector<std::pair<std::string, std::string>> point{{"node", run.node}};
      if (serve) {
        point.emplace_back("concurrency", std::to_string(figure.key.concurrency));
      } else {
        point.emplace_back("tokens", std::to_string(figure.key.tokens));
        point.emplace_back("mode", figure.key.mode);
        point.emplace_back("backend", figure.key.backend);
      }
      Family& f = family(
          name, stat->summary ? "summary" : "gauge", stat->unit,
          fmt::format("{}; labels node, {}", stat->help, serve ? "concurrency" : "tokens, mode, backend"));
      if (!stat->summary) {
        f.samples.push_back(name + labels(point) + " " + number(figure.value * stat->scale));
        continue;
      }
      const std::vector<std::pair<const char*, std::optional<double>>> quantiles{
          {"0.5", figure.value}, {"0.9", figure.p90}, {"0.99", figure.p99}};
      for (const auto& [quantile, value] : quantiles) {
        if (!value || !std::isfinite(*value)) continue;
        auto with_quantile = point;
        with_quantile.emplace_back("quantile", quantile);
        f.samples.push_back(name + labels(with_quantile) + " " + number(*value * stat->scale));
      }
      if (figure.samples && figure.mean && std::isfinite(*figure.mean))
        f.samples.push_back(name + "_sum" + labels(point) + " " +
                            number(*figure.mean * stat->scale * static_cast<double>(*figure.samples)));
      if (figure.samples)
        f.samples.push_back(name + "_count" + labels(point) + " " + std::to_string(*figure.samples));
    }
  }
  std::string text;
  for (const std::string& name : order) {
    const Family& f = families.at(name);
    text += fmt::format("# TYPE {} {}\n", name, f.type);
    if (!f.unit.empty()) text += fmt::format("# UNIT {} {}\n", name, f.unit);
    text += fmt::format("# HELP {} {}\n", name, escaped(f.help, false));
    for (const std::string& sample : f.samples) text += sample + "\n";
  }
  return text + "# EOF\n";
}

}  // namespace k25
