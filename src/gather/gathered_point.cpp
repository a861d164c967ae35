// Reduces every rank's samples of a point to the coordinator: max per trial, sum of wrong, slowest rank,
// timeline. Every collective is non-blocking and its wait bounded by the collective timeout.
#include "gather/gathered_point.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "common/bounded_wait.hpp"
#include "common/error.hpp"
#include "common/stats.hpp"

namespace k25 {
namespace {

// Waits for one collective of the gather; `what` names it on a timeout ("MPI_Ireduce of the step times").
void wait_gathering(MPI_Request& request, const RankContext& context, const std::string& point,
                    const char* what) {
  wait_bounded(request, context,
               [&] { return fmt::format("{} of {}, gathered on the coordinator", what, point); });
}

std::vector<double> max_over_ranks(const std::vector<double>& local, const RankContext& context,
                                   const std::string& point, const char* what) {
  std::vector<double> result(context.is_coordinator() ? local.size() : 0);
  MPI_Request request = MPI_REQUEST_NULL;
  K25_MPI_CHECK(MPI_Ireduce(local.data(), result.data(), static_cast<int>(local.size()), MPI_DOUBLE, MPI_MAX,
                            0, context.world(), &request));
  wait_gathering(request, context, point, what);
  return result;
}

// Each rank's median of `local`, gathered on the coordinator (index = rank); empty on the other ranks.
std::vector<double> gather_median(const std::vector<double>& local, const RankContext& context,
                                  const std::string& point, const char* what) {
  double mine = summarize(local).p50;
  std::vector<double> all(context.is_coordinator() ? static_cast<std::size_t>(context.size()) : 0);
  MPI_Request request = MPI_REQUEST_NULL;
  K25_MPI_CHECK(MPI_Igather(&mine, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, context.world(), &request));
  wait_gathering(request, context, point, fmt::format("MPI_Igather of {}", what).c_str());
  return all;
}

// Index of the op-pass trial whose total time on the coordinator is the median; shared with every rank.
int representative_trial_index(const PointSamples& samples, const RankContext& context) {
  int index = 0;
  if (context.is_coordinator() && !samples.op_trial_spans.empty()) {
    std::vector<std::pair<double, int>> totals;
    for (std::size_t t = 0; t < samples.op_trial_spans.size(); ++t) {
      const auto& spans = samples.op_trial_spans[t];
      totals.emplace_back(spans.empty() ? 0.0 : spans.back().end_us, static_cast<int>(t));
    }
    std::sort(totals.begin(), totals.end());
    index = totals[totals.size() / 2].second;
  }
  MPI_Request request = MPI_REQUEST_NULL;
  K25_MPI_CHECK(MPI_Ibcast(&index, 1, MPI_INT, 0, context.world(), &request));
  wait_gathering(request, context, samples.point, "MPI_Ibcast of the representative trial");
  return index;
}

// The timed trial whose step (max over ranks, on the coordinator) is the median, shared with every rank, and
// each rank's arrival, step and launch in it gathered on the coordinator.
void gather_step_trial(const PointSamples& samples, const std::vector<double>& max_steps,
                       const RankContext& context, GatheredPoint& point) {
  int index = -1;
  if (context.is_coordinator() && !max_steps.empty()) {
    std::vector<std::pair<double, int>> ordered;
    for (std::size_t t = 0; t < max_steps.size(); ++t)
      ordered.emplace_back(max_steps[t], static_cast<int>(t));
    std::sort(ordered.begin(), ordered.end());
    index = ordered[ordered.size() / 2].second;
  }
  MPI_Request request = MPI_REQUEST_NULL;
  K25_MPI_CHECK(MPI_Ibcast(&index, 1, MPI_INT, 0, context.world(), &request));
  wait_gathering(request, context, samples.point, "MPI_Ibcast of the median timed trial");
  if (index < 0 || static_cast<std::size_t>(index) >= samples.step_us.size()) return;
  const auto t = static_cast<std::size_t>(index);
  const double launch = t < samples.launch_us.size() ? samples.launch_us[t] : -1.0;
  const double arrival = t < samples.arrival_us.size() ? samples.arrival_us[t] : 0.0;
  const double mine[3] = {arrival, samples.step_us[t], launch};
  std::vector<double> all(context.is_coordinator() ? static_cast<std::size_t>(context.size()) * 3 : 0);
  K25_MPI_CHECK(MPI_Igather(mine, 3, MPI_DOUBLE, all.data(), 3, MPI_DOUBLE, 0, context.world(), &request));
  wait_gathering(request, context, samples.point, "MPI_Igather of each rank's median trial");
  point.representative_step_trial = index;
  for (std::size_t r = 0; r + 2 < all.size(); r += 3)
    point.representative_step.push_back(
        StepSpan{all[r], all[r + 1], all[r + 2] >= 0 ? std::optional<double>(all[r + 2]) : std::nullopt, 0});
}

// Gathers one trial's spans of every rank to the coordinator (4 doubles per op: index, layer, start, end).
std::vector<std::vector<OpSpan>> gather_trial(const std::vector<OpSpan>& local, const RankContext& context,
                                              const std::string& point) {
  std::vector<double> flat;
  for (const auto& span : local)
    flat.insert(flat.end(), {static_cast<double>(span.op_index), static_cast<double>(span.layer),
                             span.start_us, span.end_us});
  const int count = static_cast<int>(flat.size());
  std::vector<int> counts(static_cast<std::size_t>(context.size()));
  MPI_Request request = MPI_REQUEST_NULL;
  K25_MPI_CHECK(MPI_Igather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, context.world(), &request));
  wait_gathering(request, context, point, "MPI_Igather of the trace's span counts");
  std::vector<int> displs(counts.size(), 0);
  std::partial_sum(counts.begin(), counts.end() - 1, displs.begin() + 1);
  std::vector<double> all(context.is_coordinator() ? static_cast<std::size_t>(displs.back() + counts.back())
                                                   : 0);
  K25_MPI_CHECK(MPI_Igatherv(flat.data(), count, MPI_DOUBLE, all.data(), counts.data(), displs.data(),
                             MPI_DOUBLE, 0, context.world(), &request));
  wait_gathering(request, context, point, "MPI_Igatherv of the trace's spans");
  std::vector<std::vector<OpSpan>> per_rank;
  if (!context.is_coordinator()) return per_rank;
  per_rank.resize(counts.size());
  for (std::size_t r = 0; r < counts.size(); ++r)
    for (int i = 0; i < counts[r]; i += 4) {
      const double* v = all.data() + displs[r] + i;
      per_rank[r].push_back(OpSpan{static_cast<int>(v[0]), static_cast<int>(v[1]), v[2], v[3]});
    }
  return per_rank;
}

}  // namespace

GatheredPoint gather_point(const PointSamples& samples, const RankContext& context) {
  GatheredPoint point;
  point.step_us = max_over_ranks(samples.step_us, context, samples.point, "MPI_Ireduce of the step times");
  point.op_us = max_over_ranks(samples.op_us, context, samples.point, "MPI_Ireduce of the per-op times");

  point.launch_us =
      max_over_ranks(samples.launch_us, context, samples.point, "MPI_Ireduce of the launch times");
  if (!samples.comm_us.empty()) {  // decode mode, on every rank alike
    point.comm_us =
        max_over_ranks(samples.comm_us, context, samples.point, "MPI_Ireduce of the communication times");
    if (context.is_coordinator()) point.gap_us = samples.gap_us;
  }

  point.rank_step_p50 =
      gather_median(samples.step_us, context, samples.point, "each rank's median step time");
  point.rank_arrival_p50 =
      gather_median(samples.arrival_us, context, samples.point, "each rank's median arrival");
  if (context.is_coordinator() && !point.rank_arrival_p50.empty()) {
    const auto& arrival = point.rank_arrival_p50;
    const auto latest = std::max_element(arrival.begin(), arrival.end());
    point.slowest_rank = static_cast<int>(latest - arrival.begin());
    point.arrival_lead_us = *latest - summarize(arrival).p50;
  }
  MPI_Request request = MPI_REQUEST_NULL;

  unsigned long long wrong = samples.wrong, total_wrong = 0;
  K25_MPI_CHECK(
      MPI_Ireduce(&wrong, &total_wrong, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, context.world(), &request));
  wait_gathering(request, context, samples.point, "MPI_Ireduce of the wrong-element counts");
  point.wrong = total_wrong;
  point.checked_ops = samples.checked_ops;
  point.interrupted = samples.interrupted;

  gather_step_trial(samples, point.step_us, context, point);
  if (!samples.op_trial_spans.empty()) {
    const int index = representative_trial_index(samples, context);
    point.representative_op_trial = index;
    point.representative_trial =
        gather_trial(samples.op_trial_spans[static_cast<std::size_t>(index)], context, samples.point);
  }
  return point;
}

}  // namespace k25
