// Renders decode-step plans as text and JSON without communicating.
#include "app/dry_run.hpp"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/count_noun.hpp"
#include "config/config_keys.hpp"
#include "config/config_loader.hpp"
#include "plan/decode_gaps.hpp"
#include "plan/graph_padding.hpp"
#include "report/atomic_file.hpp"
#include "transport/registration_check.hpp"

namespace k25 {

nlohmann::json plan_to_json(const DecodeStepPlan& plan) {
  nlohmann::json phases = nlohmann::json::array();
  for (const auto& phase : plan.phases) {
    nlohmann::json ops = nlohmann::json::array();
    for (const auto& op : phase.ops) {
      nlohmann::json entry = {{"layer", op.layer}, {"bytes", op.bytes}};
      if (!op.name.empty()) entry["name"] = op.name;
      if (op.matrix_index >= 0) {
        const ByteMatrix& m = phase.matrices[static_cast<std::size_t>(op.matrix_index)];
        nlohmann::json rows = nlohmann::json::array();
        for (int src = 0; src < m.ranks(); ++src) {
          nlohmann::json row = nlohmann::json::array();
          for (int dst = 0; dst < m.ranks(); ++dst) row.push_back(m.at(src, dst));
          rows.push_back(row);
        }
        entry["bytes_matrix"] = rows;
      }
      ops.push_back(entry);
    }
    phases.push_back({{"phase", to_string(phase.phase)},
                      {"kind", to_string(phase.kind)},
                      {"dtype", to_string(phase.dtype)},
                      {"ops_per_step", phase.ops.size()},
                      {"bytes_per_copy", phase.bytes_per_copy},
                      {"max_send_bytes_per_rank", phase.max_send_bytes_per_rank()},
                      {"max_recv_bytes_per_rank", phase.max_recv_bytes_per_rank()},
                      {"ops", ops}});
  }
  return {{"tokens", plan.tokens}, {"ranks", plan.ranks}, {"phases", phases}};
}

int run_dry_run(const RunConfig& config, int ranks, const std::string& plan_dir, std::FILE* out) {
  validate_for_ranks(config, ranks);
  std::string printed;  // printed at the end, after plan.json is written: a closed console loses nothing
  auto text = std::back_inserter(printed);
  const ModelSpec& m = config.model;
  fmt::format_to(text, "# k25comm plan: {} on {} (no communication)\n", m.name, count_noun(ranks, "rank"));
  fmt::format_to(
      text,
      "# hidden {}, {} layers ({} dense, {} MoE), {} routed experts top-{}, routing {} (seed {}), copies {}\n",
      m.hidden_size, m.num_layers, m.dense_layers, m.moe_layers(), m.routed_experts, m.experts_per_token,
      to_string(config.routing.model), config.routing.seed, to_string(config.routing.copies));
  if (!m.sequence.empty()) {
    // The step's tensor-parallel ops in issue order, at the first token count: runs of one kind and size.
    const int tokens = config.sweep.tokens.empty() ? 1 : config.sweep.tokens.front();
    const std::vector<SequencedOp> ops = tensor_parallel_ops(m, config.sweep, tokens, ranks);
    fmt::format_to(text, "# sequence at {} ({} ops, in issue order):", count_noun(tokens, "token"),
                   ops.size());
    for (std::size_t i = 0; i < ops.size();) {
      std::size_t run = i;
      while (run < ops.size() && ops[run].kind == ops[i].kind && ops[run].op.bytes == ops[i].op.bytes &&
             ops[run].op.name == ops[i].op.name)
        ++run;
      fmt::format_to(text, "{} {} x{} {} {} B{}", i == 0 ? "" : ",", to_string(ops[i].kind), run - i,
                     to_string(ops[i].dtype), ops[i].op.bytes,
                     ops[i].op.name.empty() ? "" : " (" + ops[i].op.name + ")");
      i = run;
    }
    fmt::format_to(text, "\n");
  }
  if (config.sweep.run_alltoall && m.moe_layers() > 0)
    fmt::format_to(
        text, "# expert parallelism: {}\n",
        m.ep_backend == EpBackend::allgather_reducescatter
            ? "allgather_reducescatter (dispatch = AllGather, combine = ReduceScatter, equal sizes)"
            : "send_recv (All-to-Allv of token copies)");
  fmt::format_to(
      text,
      "# tokens: per decode step for allreduce (the batch of T = C requests), per rank for dispatch and combine\n");
  const std::vector<MeasuredCount> schedule =
      measured_counts(config.sweep.tokens, config.sweep.modes, config.sweep.graph_sizes);
  if (const std::string padding = describe_graph_padding(schedule, config.sweep.graph_sizes);
      !padding.empty())
    fmt::format_to(text, "# graph mode pads token counts to capture sizes (sweep.graph_sizes): {}\n",
                   padding);
  const bool decode = std::find(config.sweep.modes.begin(), config.sweep.modes.end(), TimingMode::decode) !=
                      config.sweep.modes.end();
  if (decode) {
    const DecodeGapSpec& gaps = config.sweep.decode;
    fmt::format_to(
        text,
        "# decode mode: {:g} us of compute before every op + {:g} us per layer split over its ops + a seeded skew up to {:g} us (seed {}); gaps per step in plan.json (decode_gaps_us)\n",
        gaps.gap_us, gaps.layer_gap_us, gaps.skew_us, gaps.seed);
    if (!gaps.gaps_from.empty()) fmt::format_to(text, "# {}\n", gaps.gaps_from);
  }
  if (const std::string note =
          registration_note(config.transport.nccl_register, ranks, config.transport.emulate_ranks);
      !note.empty())
    fmt::format_to(text, "# {} (checked against the NCCL version and topology when the run starts)\n", note);
  fmt::format_to(text, "#\n# {:>6} {:>9} {:>5} {:>5} {:>14} {:>14} {:>16} {:>16}  {}\n", "tokens", "phase",
                 "dtype", "ops", "bytes/op", "MB/step", "max send/rank", "max recv/rank",
                 "measured for (mode: tokens asked)");
  nlohmann::json plans = nlohmann::json::array();
  for (const MeasuredCount& count : schedule) {
    const DecodeStepPlan plan = plan_decode_step(m, config.routing, config.sweep, count.tokens, ranks);
    std::string measured_for;
    nlohmann::json measured_json = nlohmann::json::array();
    for (const ModeRequests& mode : count.modes) {
      std::vector<int> requested;
      for (const GraphPadding& request : mode.requests) requested.push_back(request.requested);
      measured_for += fmt::format("{}{}: {}", measured_for.empty() ? "" : "; ", to_string(mode.mode),
                                  fmt::join(requested, ","));
      measured_json.push_back({{"mode", to_string(mode.mode)}, {"requested_tokens", requested}});
    }
    for (const auto& phase : plan.phases) {
      std::uint64_t step_bytes = 0;
      for (const auto& op : phase.ops) step_bytes += op.bytes;
      const double per_op =
          phase.kind != CollectiveKind::alltoallv
              ? static_cast<double>(phase.ops.front().bytes)
              : static_cast<double>(step_bytes) / static_cast<double>(phase.ops.size()) / ranks;
      fmt::format_to(
          text, "  {:>6} {:>9} {:>5} {:>5} {:>14.0f} {:>14.2f} {:>16} {:>16}  {}\n", count.tokens,
          to_string(phase.phase), to_string(phase.dtype), phase.ops.size(), per_op,
          static_cast<double>(phase.kind != CollectiveKind::alltoallv ? step_bytes : step_bytes / ranks) /
              1e6,
          phase.max_send_bytes_per_rank(), phase.max_recv_bytes_per_rank(), measured_for);
    }
    nlohmann::json plan_json = plan_to_json(plan);
    if (decode) {
      nlohmann::json gaps = nlohmann::json::object();
      for (const auto& phase : plan.phases)
        gaps[to_string(phase.phase)] = configured_gaps_us(phase, config.sweep.decode);
      plan_json["decode_gaps_us"] = gaps;  // per step, without skew
    }
    plan_json["measured_for"] = measured_json;
    plans.push_back(std::move(plan_json));
  }
  fmt::format_to(
      text,
      "# bytes/op: the op's size as nccl-tests counts it (AllReduce: the vector; AllGather: the gathered buffer;\n# ReduceScatter: the input of all parts); All-to-Allv: mean bytes one rank sends per op.\n");
  fmt::format_to(text, "# MB/step: per rank. Full per-op rank-to-rank byte matrices are in plan.json.\n");
  ensure_writable_directory(plan_dir);
  const std::string path = plan_dir + "/plan.json";
  write_file_atomically(
      path,
      nlohmann::json{{"config", config_to_json(config)}, {"ranks", ranks}, {"plans", plans}}.dump(1) + "\n");
  fmt::format_to(text, "# plan written to {}\n", path);
  std::fputs(printed.c_str(), out);  // no exception where the reader has gone (`| head`): the plan is written
  return 0;
}

}  // namespace k25
