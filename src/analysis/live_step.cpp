// The live step per profiled level: its relation to TPOT and the replay, its headline sentence and its JSON.
#include "analysis/live_step.hpp"

#include <fmt/format.h>

namespace k25 {
namespace {

// The graph burst of a phase where measured, else its eager one; nullptr when neither.
const CommShare* graph_else_eager_share(const AttributionRow& row, const std::string& phase) {
  if (const CommShare* graph = find_share(row, phase + "_graph")) return graph;
  return find_share(row, phase + "_eager");
}

std::optional<double> replay_burst_ms(const std::vector<AttributionRow>& rows, int concurrency) {
  for (const AttributionRow& row : rows) {
    if (row.concurrency != concurrency) continue;
    double sum = 0;
    bool any = false;
    for (const char* phase : {"allreduce", "alltoall"})
      if (const CommShare* share = graph_else_eager_share(row, phase)) {
        sum += share->comm_ms;
        any = true;
      }
    if (any) return sum;
  }
  return std::nullopt;
}

}  // namespace

void relate_live_steps(LiveProfile& live, const ServeReport& serve, const std::vector<AttributionRow>& rows) {
  for (LiveStepLevel& level : live.levels) {
    level.level_tpot_ms.reset();
    level.window_tpot_ms.reset();
    for (const ServeLevel& served : serve.levels)
      if (served.concurrency == level.concurrency && served.tpot_ms)
        level.level_tpot_ms = served.tpot_ms->p50;
    for (const ProfileWindow& window : serve.profile.windows)
      if (window.concurrency == level.concurrency && window.tpot_ms)
        level.window_tpot_ms = window.tpot_ms->p50;
    level.replay_burst_ms = replay_burst_ms(rows, level.concurrency);
  }
}

std::optional<std::string> live_headline_sentence(const LiveProfile& live) {
  for (const LiveStepLevel& level : live.levels) {
    if (level.status != LiveStepStatus::read) continue;
    std::string sentence = fmt::format(
        "live profile at C={}: communication {:.1f} % of the {}'s wall ({:.1f} % of GPU busy), exposed {:.1f} %",
        level.concurrency, 100 * level.comm_share, level.step, 100 * level.comm_busy_share,
        100 * level.exposed_share);
    if (level.replay_burst_ms && level.level_tpot_ms && *level.level_tpot_ms > 0)
      sentence +=
          fmt::format("; the replay's burst {:.3g} ms = {:.1f} % of TPOT {:.3g} ms", *level.replay_burst_ms,
                      100 * *level.replay_burst_ms / *level.level_tpot_ms, *level.level_tpot_ms);
    return sentence;
  }
  return std::nullopt;
}

void to_json(nlohmann::json& j, const LiveStepLevel& l) {
  nlohmann::json kinds = nlohmann::json::array(), classes = nlohmann::json::array();
  for (const LiveStepKind& k : l.kinds)
    kinds.push_back(
        {{"kind", k.kind}, {"ops_per_step", k.ops_per_step}, {"merged_us", k.merged_us}, {"share", k.share}});
  for (const LiveStepClass& c : l.classes)
    classes.push_back({{"class", c.cls}, {"merged_us", c.merged_us}, {"share", c.share}});
  const auto optional = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json();
  };
  j = nlohmann::json{{"concurrency", l.concurrency},
                     {"status", to_string(l.status)},
                     {"note", l.note},
                     {"files", l.files},
                     {"capture_command", l.capture_command},
                     {"step", l.step},
                     {"batch", l.batch ? nlohmann::json(*l.batch) : nlohmann::json()},
                     {"steps", l.steps},
                     {"wall_us", l.wall_us},
                     {"gpu_busy_us", l.gpu_busy_us},
                     {"comm_merged_us", l.comm_merged_us},
                     {"comm_exposed_us", l.comm_exposed_us},
                     {"comm_share", l.comm_share},
                     {"exposed_share", l.exposed_share},
                     {"comm_busy_share", l.comm_busy_share},
                     {"kinds", kinds},
                     {"classes", classes},
                     {"level_tpot_ms", optional(l.level_tpot_ms)},
                     {"window_tpot_ms", optional(l.window_tpot_ms)},
                     {"replay_burst_ms", optional(l.replay_burst_ms)}};
}

void from_json(const nlohmann::json& j, LiveStepLevel& l) {
  l.concurrency = j.at("concurrency").get<int>();
  l.status = enum_from_name_or_throw<LiveStepStatus>("live step status", j.value("status", ""));
  l.note = j.value("note", "");
  l.files = j.value("files", std::vector<std::string>{});
  l.capture_command = j.value("capture_command", "");
  l.step = j.value("step", "");
  if (j.contains("batch") && j["batch"].is_number_integer()) l.batch = j["batch"].get<int>();
  l.steps = j.value("steps", std::uint64_t{0});
  l.wall_us = j.value("wall_us", 0.0);
  l.gpu_busy_us = j.value("gpu_busy_us", 0.0);
  l.comm_merged_us = j.value("comm_merged_us", 0.0);
  l.comm_exposed_us = j.value("comm_exposed_us", 0.0);
  l.comm_share = j.value("comm_share", 0.0);
  l.exposed_share = j.value("exposed_share", 0.0);
  l.comm_busy_share = j.value("comm_busy_share", 0.0);
  for (const nlohmann::json& k : j.value("kinds", nlohmann::json::array()))
    l.kinds.push_back({k.value("kind", ""), k.value("ops_per_step", 0.0), k.value("merged_us", 0.0),
                       k.value("share", 0.0)});
  for (const nlohmann::json& c : j.value("classes", nlohmann::json::array()))
    l.classes.push_back({c.value("class", ""), c.value("merged_us", 0.0), c.value("share", 0.0)});
}

void to_json(nlohmann::json& j, const LiveProfile& live) {
  j = nlohmann::json{{"levels", live.levels}};
}

void from_json(const nlohmann::json& j, LiveProfile& live) {
  live.present = true;
  live.levels = j.value("levels", std::vector<LiveStepLevel>{});
}

}  // namespace k25
