// Latency model of one phase: latency per op = alpha + bytes / beta, fitted over the sweep by least squares
// on relative errors with alpha >= 0 and beta >= 0 (report.json `fits`), and the communication of a decode
// step it predicts at any token count, marked where that lies outside the measured range.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/phase_result.hpp"

namespace k25 {

// Ordinary least squares y = intercept + slope x with the standard errors of both (empty below 3 points).
struct LinearFit {
  int points = 0;
  double intercept = 0, slope = 0;
  std::optional<double> intercept_stderr, slope_stderr;
  double r_squared = 0;  // 1 when all points lie on the line (or all y are equal and fitted exactly)
};

// Needs at least 2 points with distinct x; throws std::invalid_argument otherwise.
LinearFit least_squares(const std::vector<double>& x, const std::vector<double>& y);

// Least squares of the relative residuals (weights 1 / y^2: a 10 % miss at 14 KB counts as much as one at
// 3.6 MB, where plain least squares lets the largest points decide and the smallest go wrong by 2x or below
// zero), with intercept >= 0 and slope >= 0: where the free fit crosses a bound, that term is held at 0 and
// the other refitted (its standard error then from the one-term fit; the held term has none). All y must be
// positive. r_squared is the plain R^2 of the fitted line against y. Same preconditions as least_squares.
struct BoundedFit : LinearFit {
  bool intercept_held_at_zero = false, slope_held_at_zero = false;
};
BoundedFit relative_nonnegative_least_squares(const std::vector<double>& x, const std::vector<double>& y);

// The fit at one measured point.
struct FitResidual {
  int tokens = 0;
  double bytes = 0;
  double measured_us = 0, predicted_us = 0;  // per op
  double relative_error = 0;                 // (predicted - measured) / measured
};

// A decode step's communication predicted at `tokens`, and whether that lies outside the measured range.
struct StepPrediction {
  int tokens = 0;
  double step_us = 0;
  bool extrapolated = false;
};

// The fitted model of one (phase, mode). Bytes are per rank per op: bytes_per_op for AllReduce, the mean
// bytes one rank sends (bytes_per_rank.mean) for All-to-All. Latency is op_us.p50 (the slowest rank's op).
struct LatencyFit {
  Phase phase = Phase::allreduce;
  TimingMode mode = TimingMode::eager;
  int points = 0;
  double alpha_us = 0;  // fixed cost of one op
  std::optional<double> alpha_stderr_us;
  std::optional<double> beta_gbps;         // bandwidth term, GB/s (1e9 B/s); empty when latency does not grow
  std::optional<double> beta_stderr_gbps;  // from the slope's standard error (first-order propagation)
  double r_squared = 0;
  double bytes_per_token = 0;          // per rank per op, from the sweep (sum of bytes / sum of tokens)
  int ops_per_step = 0;                // ops of this phase in one decode step
  int min_tokens = 0, max_tokens = 0;  // fitted range
  std::string note;                    // why beta is missing, or other caveats
  bool alpha_held_at_zero = false;     // the free fit's alpha was negative
  std::vector<FitResidual> residuals;  // one per measured point
  double max_relative_error = 0;       // largest |relative_error|
};

// Token counts report.md and report.json predict a step at: 1, 64 and 512.
const std::vector<int>& prediction_tokens();
StepPrediction predict_step(const LatencyFit& fit, int tokens);

// One fit per (phase, mode) with at least 2 distinct byte counts, in phase then mode order, by
// relative_nonnegative_least_squares: no prediction is negative.
std::vector<LatencyFit> fit_latency_models(const std::vector<PhaseResult>& results);

double predict_op_us(const LatencyFit& fit, double bytes_per_op);
// ops_per_step x (alpha + tokens x bytes_per_token / beta), microseconds.
double predict_step_us(const LatencyFit& fit, double tokens);

void to_json(nlohmann::json& j, const LatencyFit& fit);
void from_json(const nlohmann::json& j, LatencyFit& fit);

}  // namespace k25
