// Captured figures next to a replay report's and a serve run's.
#include "capture/analysis/replay_comparison.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "capture/analysis/primary_communicator.hpp"
#include "common/collective_kind_names.hpp"

namespace k25 {
namespace {

// One per measurement: graph-mode counts padded to one capture size share a measurement (same tokens, mode).
std::vector<const PhaseResult*> allreduce_results(const RunReport& replay) {
  std::vector<const PhaseResult*> found;
  for (const PhaseResult& r : replay.results)
    if (r.phase == Phase::allreduce && std::none_of(found.begin(), found.end(), [&](const PhaseResult* f) {
          return f->tokens == r.tokens && f->mode == r.mode;
        }))
      found.push_back(&r);
  return found;
}

// The model the replay ran ("" where its config does not say).
std::string replay_model_name(const RunReport& replay) {
  if (!replay.run.config.is_object() || !replay.run.config.contains("model")) return {};
  const nlohmann::json& model = replay.run.config.at("model");
  if (model.is_object() && model.contains("name") && model.at("name").is_string())
    return model.at("name").get<std::string>();
  return {};
}

// A captured AllReduce size next to the replay's per-op time at the same bytes (in the same mode, where the
// capture says it).
ReplayOpRow op_row(const CommunicatorResult& c, const SizeGroup& g,
                   const std::vector<const PhaseResult*>& allreduce) {
  ReplayOpRow row;
  row.comm = comm_label(c);
  row.kind = g.kind;
  row.phase = g.phase;
  row.mode = g.mode;
  row.bytes = g.bytes;
  row.tokens = g.tokens;
  row.count = g.count;
  row.captured_us_p50 = g.exec_us.p50;
  for (const PhaseResult* r : allreduce) {
    if (r->bytes_per_op != g.bytes || g.bytes == 0) continue;
    if (!g.mode.empty() && to_string(r->mode) != g.mode) continue;
    ReplayMatch m;
    m.mode = to_string(r->mode);
    m.tokens = r->tokens;
    m.op_us_p50 = r->op_us.p50;
    m.ratio = r->op_us.p50 > 0 ? g.exec_us.p50 / r->op_us.p50 : 0.0;
    row.replay.push_back(std::move(m));
  }
  return row;
}

// A captured decode step next to the replay's step at the same tokens.
ReplayStepRow step_row(const CommunicatorResult& c, const StepSizeGroup& g,
                       const std::vector<const PhaseResult*>& allreduce) {
  ReplayStepRow row;
  row.comm = comm_label(c);
  row.tokens = *g.tokens;
  row.steps = g.steps;
  row.allreduces_per_step = g.size_kind_ops;
  row.captured_allreduce_us_p50 = g.size_kind_us.p50;
  row.captured_step_us_p50 = g.comm_us.p50;
  for (const PhaseResult* r : allreduce) {
    if (r->tokens != *g.tokens || r->ops_per_step <= 0 || r->step_us.p50 <= 0) continue;
    ReplayStepMatch m;
    m.mode = to_string(r->mode);
    m.ops_per_step = r->ops_per_step;
    m.step_us_p50 = r->step_us.p50;
    m.per_op_ratio = row.allreduces_per_step > 0 ? (row.captured_allreduce_us_p50 / row.allreduces_per_step) /
                                                       (m.step_us_p50 / m.ops_per_step)
                                                 : 0.0;
    row.replay.push_back(std::move(m));
  }
  return row;
}

// A trace's decode steps: their communication share next to the replay's attribution at T = batch.
std::vector<ReplayShareRow> share_rows(const TraceResult& trace, const RunReport& replay) {
  std::vector<ReplayShareRow> rows;
  for (const TraceStepGroup& g : trace.groups) {
    if (g.rank || g.phase != "decode" || !g.batch) continue;
    ReplayShareRow row;
    row.batch = *g.batch;
    row.steps = g.steps;
    row.trace_wall_ms = g.wall_us.p50 / 1000.0;
    row.trace_comm_ms = g.comm_merged_us.p50 / 1000.0;
    row.trace_share = g.comm_share;
    row.trace_exposed_share = g.exposed_share;
    for (const AttributionRow& a : replay.attribution) {
      if (a.tokens != row.batch) continue;
      for (const CommShare& c : a.comm)
        row.replay.push_back({a.concurrency, a.tpot_ms, c.key.text(), c.comm_ms, c.share});
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

ReplayComparison compare_with_replay(const CaptureResult& capture, const RunReport& replay,
                                     const std::string& path) {
  ReplayComparison out;
  out.path = path;
  out.ranks = replay.run.ranks;
  out.transport = replay.run.transport;
  out.model = replay_model_name(replay);
  const std::vector<const PhaseResult*> allreduce = allreduce_results(replay);
  if (allreduce.empty())
    out.notes.push_back(fmt::format("{} has no allreduce results to compare with", path));

  std::set<std::string> unmatched_kinds;
  bool p2p = false;
  for (const CommunicatorResult& c : capture.communicators) {
    if (out.ranks > 0 && c.n_ranks != out.ranks && c.step.decode_steps > 0)
      out.notes.push_back(fmt::format("communicator {} has {} ranks; the replay ran on {}", comm_label(c),
                                      c.n_ranks, out.ranks));
    if (!c.p2p.empty()) p2p = true;
    for (const SizeGroup& g : c.by_size) {
      if (names_kind(g.kind, CollectiveKind::allreduce))
        out.ops.push_back(op_row(c, g, allreduce));
      else
        unmatched_kinds.insert(g.kind);
    }
    for (const StepSizeGroup& g : c.step.by_size)
      if (g.phase == "decode" && g.tokens && names_kind(c.step.size_kind, CollectiveKind::allreduce))
        out.steps.push_back(step_row(c, g, allreduce));
  }
  out.shares = share_rows(capture.trace, replay);
  if (capture.trace.present && replay.attribution.empty())
    out.notes.push_back(fmt::format(
        "{} has no attribution (its serve phase did not run): the trace's shares stand alone", path));
  for (const std::string& kind : unmatched_kinds)
    out.notes.push_back(fmt::format("{}: the replay has no {} phase to compare with", kind, kind));
  if (p2p)
    out.notes.push_back(
        "Send/Recv: the replay's dispatch and combine are All-to-Alls with per-peer sizes; they are not compared op by op");
  return out;
}

std::vector<LiveAttributionRow> live_attribution(const CaptureResult& capture,
                                                 const std::vector<ServeLevel>& levels,
                                                 std::optional<double> tpot_ms, const RunReport* replay) {
  std::vector<LiveAttributionRow> rows;
  const CommunicatorResult* comm = primary_communicator(capture);
  const auto fill_replay = [&](LiveAttributionRow& row) {
    if (!replay || !row.tokens) return;
    for (const PhaseResult* r : allreduce_results(*replay)) {
      if (r->tokens != *row.tokens) continue;
      LiveAttributionReplay entry;
      entry.mode = to_string(r->mode);
      entry.comm_ms = r->step_us.p50 / 1000.0;
      entry.share = row.tpot_ms > 0 ? entry.comm_ms / row.tpot_ms : 0.0;
      row.replay.push_back(std::move(entry));
    }
  };
  for (const ServeLevel& level : levels) {
    if (level.completed <= 0 || !level.tpot_ms || level.tpot_ms->p50 <= 0) continue;
    LiveAttributionRow row;
    row.concurrency = level.concurrency;
    row.tpot_ms = level.tpot_ms->p50;
    row.tpot_source = "serve p50";
    row.tokens = level.concurrency;
    if (!comm) {
      row.captured_reason = "no decode step was found in the capture";
    } else if (!capture.model) {
      row.captured_reason = "--model is needed to turn step sizes into tokens";
    } else {
      const auto found =
          std::find_if(comm->step.by_size.begin(), comm->step.by_size.end(), [&](const StepSizeGroup& g) {
            return g.phase == "decode" && g.tokens && *g.tokens == level.concurrency;
          });
      if (found == comm->step.by_size.end()) {
        row.captured_reason = fmt::format("no captured decode step of {} tokens", level.concurrency);
      } else {
        row.captured_steps = found->steps;
        row.captured_comm_ms = found->comm_us.p50 / 1000.0;
        row.captured_share = *row.captured_comm_ms / row.tpot_ms;
      }
    }
    fill_replay(row);
    for (const TraceStepGroup& g : capture.trace.groups)
      if (!g.rank && g.phase == "decode" && g.batch == level.concurrency) {
        row.trace_steps = g.steps;
        row.trace_step_ms = g.wall_us.p50 / 1000.0;
        row.trace_comm_ms = g.comm_merged_us.p50 / 1000.0;
        row.trace_share = row.trace_comm_ms.value() / row.tpot_ms;
      }
    rows.push_back(std::move(row));
  }
  if (tpot_ms && *tpot_ms > 0) {
    LiveAttributionRow row;
    row.tpot_ms = *tpot_ms;
    row.tpot_source = "--tpot";
    if (!comm || !comm->step.decode_comm_us) {
      row.captured_reason = "no decode step was found in the capture";
    } else if (comm->step.phase_unknown_steps == comm->step.decode_steps) {
      row.captured_reason =
          "the capture's steps have no phase (training steps, or steps the timeline cut): no decode step";
    } else {
      row.captured_steps = comm->step.decode_steps;
      row.captured_comm_ms = comm->step.decode_comm_us->p50 / 1000.0;
      row.captured_share = *row.captured_comm_ms / row.tpot_ms;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace k25
