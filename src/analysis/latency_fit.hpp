// Latency model of one phase: latency per op = alpha + bytes / beta, fitted by least squares over the sweep
// (report.json `fits`), and the communication of a decode step it predicts at any token count.
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
};

// One fit per (phase, mode) with at least 2 distinct byte counts, in phase then mode order.
std::vector<LatencyFit> fit_latency_models(const std::vector<PhaseResult>& results);

double predict_op_us(const LatencyFit& fit, double bytes_per_op);
// ops_per_step x (alpha + tokens x bytes_per_token / beta), microseconds.
double predict_step_us(const LatencyFit& fit, double tokens);

void to_json(nlohmann::json& j, const LatencyFit& fit);
void from_json(const nlohmann::json& j, LatencyFit& fit);

}  // namespace k25
