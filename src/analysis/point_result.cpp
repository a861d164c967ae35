// Builds a PhaseResult from the slowest-rank timings of a point.
#include "analysis/point_result.hpp"

#include <algorithm>

#include "analysis/bandwidth.hpp"
#include "common/stats.hpp"
#include "plan/decode_gaps.hpp"

namespace k25 {

namespace {

// What a result says of the point itself, measured or not.
PhaseResult point_of(const PhasePlan& phase, TimingMode mode) {
  PhaseResult r;
  r.phase = phase.phase;
  r.kind_issued = phase.kind;
  r.tokens = phase.tokens;
  r.requested_tokens = phase.tokens;
  r.mode = mode;
  r.dtype = phase.dtype;
  r.ranks = phase.ranks;
  r.ops_per_step = static_cast<int>(phase.ops.size());
  return r;
}

}  // namespace

PhaseResult make_phase_result(const PhasePlan& phase, TimingMode mode, const GatheredPoint& point,
                              const TimingFacts& timing) {
  PhaseResult r = point_of(phase, mode);
  r.iterations = static_cast<int>(point.step_us.size());
  r.step_us = summarize(point.step_us);

  double bytes_per_rank_per_op = 0;
  if (phase.kind != CollectiveKind::alltoallv) {
    r.bytes_per_op = phase.ops.empty() ? 0 : phase.ops.front().bytes;
    bytes_per_rank_per_op = static_cast<double>(r.bytes_per_op);
  } else {
    double total = 0, largest = 0;
    for (const auto& matrix : phase.matrices) {
      total += static_cast<double>(matrix.total());
      for (int src = 0; src < matrix.ranks(); ++src)
        largest = std::max(largest, static_cast<double>(matrix.row_sum(src)));
    }
    const double rank_ops = static_cast<double>(phase.matrices.size()) * phase.ranks;
    r.bytes_per_rank_mean = rank_ops > 0 ? total / rank_ops : 0;
    r.bytes_per_rank_max = largest;
    bytes_per_rank_per_op = r.bytes_per_rank_mean;
  }

  if (!point.op_us.empty()) {
    r.op_us = summarize(point.op_us);
    r.op_us_source = mode == TimingMode::decode ? "decode_trials" : "per_op_pass";
    r.op_iterations = static_cast<int>(point.op_us.size() / std::max<std::size_t>(phase.ops.size(), 1));
  } else {
    std::vector<double> per_op;
    for (double step : point.step_us) per_op.push_back(step / std::max(r.ops_per_step, 1));
    r.op_us = summarize(per_op);
    r.op_us_source = "step_over_ops";
  }

  // Decode mode: the bandwidth of the communication alone (the step holds the gaps too).
  const double comm_p50 = mode == TimingMode::decode ? summarize(point.comm_us).p50 : r.step_us.p50;
  const double op_time_us = r.ops_per_step > 0 ? comm_p50 / r.ops_per_step : 0;
  r.algbw_gbps = algbw_gbps(bytes_per_rank_per_op, op_time_us);
  r.busbw_gbps = r.algbw_gbps * busbw_factor(phase.kind, phase.ranks);
  if (phase.kind ==
      CollectiveKind::alltoallv)  // the step is the slowest rank's: its bytes are the hot rank's
    r.busbw_max_gbps = algbw_gbps(r.bytes_per_rank_max, op_time_us) * busbw_factor(phase.kind, phase.ranks);
  r.device_only = timing.device_only && mode != TimingMode::decode;  // decode mode never holds the stream
  if (!timing.launch_is_step && !point.launch_us.empty()) {
    r.launch_us = summarize(point.launch_us);
    r.launch_bound = r.launch_us->p50 > 0.5 * r.step_us.p50;
  }
  if (mode == TimingMode::decode) {
    DecodeFigures decode;
    decode.gap_configured_us = configured_gaps_us(phase, timing.decode);
    decode.skew_us = timing.decode.skew_us;
    decode.shape = shape_key(timing.decode);
    for (const double gap : decode_gaps_us(phase, 0, timing.decode)) decode.gap_expected_us += gap;
    decode.gap_measured_us = summarize(point.gap_us);
    decode.comm_us = summarize(point.comm_us);
    r.decode = decode;
  }
  r.wrong = point.wrong;
  r.checked = point.checked_ops > 0;
  r.slowest_rank = point.slowest_rank;
  r.arrival_lead_us = point.arrival_lead_us;
  return r;
}

PhaseResult not_run_result(const PhasePlan& phase, TimingMode mode, const std::string& backend,
                           const std::string& why) {
  PhaseResult r = point_of(phase, mode);
  r.bytes_per_op = phase.ops.empty() ? 0 : phase.ops.front().bytes;
  r.backend = backend;
  r.not_run = why;
  return r;
}

PhaseResult result_for_request(PhaseResult measured, const GraphPadding& request) {
  measured.requested_tokens = request.requested;
  measured.above_graph_sizes = request.above_largest;
  return measured;
}

namespace {

// Bytes rank `rank` contributes to op `op_index`: the AllReduce buffer, or what it sends in the All-to-All.
std::uint64_t rank_op_bytes(const PhasePlan& phase, std::size_t op_index, int rank) {
  const CommOp& op = phase.ops.at(op_index);
  if (phase.kind != CollectiveKind::alltoallv || op.matrix_index < 0) return op.bytes;
  const auto& matrix = phase.matrices.at(static_cast<std::size_t>(op.matrix_index));
  return rank < matrix.ranks() ? matrix.row_sum(rank) : 0;
}

}  // namespace

TrialTimeline make_trial_timeline(const PhasePlan& phase, TimingMode mode,
                                  const std::vector<std::string>& hosts, const GatheredPoint& point,
                                  const TimingFacts& timing) {
  TrialTimeline timeline;
  timeline.phase = phase.phase;
  timeline.tokens = phase.tokens;
  timeline.mode = mode;
  timeline.rank_hosts = hosts;
  timeline.ops_per_step = static_cast<int>(phase.ops.size());
  timeline.step_trial = point.representative_step_trial;
  timeline.step = point.representative_step;
  for (std::size_t rank = 0; rank < timeline.step.size(); ++rank) {
    if (timing.launch_is_step) timeline.step[rank].launch_us.reset();
    for (std::size_t i = 0; i < phase.ops.size(); ++i)
      timeline.step[rank].bytes += rank_op_bytes(phase, i, static_cast<int>(rank));
  }
  timeline.op_trial = point.representative_op_trial;
  timeline.ranks = point.representative_trial;
  for (std::size_t rank = 0; rank < timeline.ranks.size(); ++rank)
    for (OpSpan& span : timeline.ranks[rank])
      if (span.op_index >= 0 && static_cast<std::size_t>(span.op_index) < phase.ops.size())
        span.bytes = rank_op_bytes(phase, static_cast<std::size_t>(span.op_index), static_cast<int>(rank));
  return timeline;
}

}  // namespace k25
