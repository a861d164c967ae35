// Least-squares fit of latency = alpha + bytes / beta per phase, and predictions from it.
#include "analysis/latency_fit.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

#include "common/json_integer.hpp"

namespace k25 {

LinearFit least_squares(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) throw std::invalid_argument("least_squares: x and y differ in length");
  const std::size_t n = x.size();
  if (n < 2) throw std::invalid_argument("least_squares: needs at least 2 points");
  double mean_x = 0, mean_y = 0;
  for (std::size_t i = 0; i < n; ++i) {
    mean_x += x[i];
    mean_y += y[i];
  }
  mean_x /= static_cast<double>(n);
  mean_y /= static_cast<double>(n);
  double sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxx += (x[i] - mean_x) * (x[i] - mean_x);
    sxy += (x[i] - mean_x) * (y[i] - mean_y);
    syy += (y[i] - mean_y) * (y[i] - mean_y);
  }
  if (!(sxx > 0)) throw std::invalid_argument("least_squares: needs at least 2 distinct x values");

  LinearFit fit;
  fit.points = static_cast<int>(n);
  fit.slope = sxy / sxx;
  fit.intercept = mean_y - fit.slope * mean_x;
  double residual_ss = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double r = y[i] - (fit.intercept + fit.slope * x[i]);
    residual_ss += r * r;
  }
  fit.r_squared = syy > 0 ? 1.0 - residual_ss / syy : 1.0;
  if (n >= 3) {
    const double sigma2 = residual_ss / static_cast<double>(n - 2);
    double sum_x2 = 0;
    for (double xi : x) sum_x2 += xi * xi;
    fit.slope_stderr = std::sqrt(sigma2 / sxx);
    fit.intercept_stderr = std::sqrt(sigma2 * sum_x2 / (static_cast<double>(n) * sxx));
  }
  return fit;
}

namespace {

double bytes_of(const PhaseResult& r) {
  return r.phase == Phase::allreduce ? static_cast<double>(r.bytes_per_op) : r.bytes_per_rank_mean;
}

double op_latency_us(const PhaseResult& r) {
  if (r.op_us.p50 > 0) return r.op_us.p50;
  return r.ops_per_step > 0 ? r.step_us.p50 / r.ops_per_step : 0.0;
}

// us per byte -> GB/s: 1 B/us = 1e6 B/s = 1e-3 GB/s.
constexpr double kGbpsPerBytePerUs = 1e-3;

}  // namespace

std::vector<LatencyFit> fit_latency_models(const std::vector<PhaseResult>& results) {
  std::map<std::pair<Phase, TimingMode>, std::vector<const PhaseResult*>> groups;
  for (const PhaseResult& r : results) {
    if (bytes_of(r) > 0 && op_latency_us(r) > 0) groups[{r.phase, r.mode}].push_back(&r);
  }
  std::vector<LatencyFit> fits;
  for (const auto& [key, group] : groups) {
    std::vector<double> x, y;
    double bytes_sum = 0, tokens_sum = 0;
    LatencyFit fit;
    fit.phase = key.first;
    fit.mode = key.second;
    fit.min_tokens = group.front()->tokens;
    for (const PhaseResult* r : group) {
      x.push_back(bytes_of(*r));
      y.push_back(op_latency_us(*r));
      bytes_sum += bytes_of(*r);
      tokens_sum += r->tokens;
      fit.ops_per_step = std::max(fit.ops_per_step, r->ops_per_step);
      fit.min_tokens = std::min(fit.min_tokens, r->tokens);
      fit.max_tokens = std::max(fit.max_tokens, r->tokens);
    }
    LinearFit line;
    try {
      line = least_squares(x, y);
    } catch (const std::invalid_argument&) {
      continue;  // one byte count only: nothing to fit
    }
    fit.points = line.points;
    fit.alpha_us = line.intercept;
    fit.alpha_stderr_us = line.intercept_stderr;
    fit.r_squared = line.r_squared;
    fit.bytes_per_token = tokens_sum > 0 ? bytes_sum / tokens_sum : 0.0;
    if (line.slope > 0) {
      fit.beta_gbps = kGbpsPerBytePerUs / line.slope;
      if (line.slope_stderr) fit.beta_stderr_gbps = *fit.beta_gbps * (*line.slope_stderr / line.slope);
    } else {
      fit.note = "latency does not grow with bytes over the measured range: no bandwidth term";
    }
    if (fit.points < 3) fit.note += std::string(fit.note.empty() ? "" : "; ") + "2 points: no error estimate";
    fits.push_back(std::move(fit));
  }
  return fits;
}

double predict_op_us(const LatencyFit& fit, double bytes_per_op) {
  const double transfer_us = fit.beta_gbps ? bytes_per_op * kGbpsPerBytePerUs / *fit.beta_gbps : 0.0;
  return fit.alpha_us + transfer_us;
}

double predict_step_us(const LatencyFit& fit, double tokens) {
  return fit.ops_per_step * predict_op_us(fit, tokens * fit.bytes_per_token);
}

namespace {

nlohmann::json optional_number(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

std::optional<double> read_optional_number(const nlohmann::json& j, const char* key) {
  if (j.contains(key) && j[key].is_number()) return j[key].get<double>();
  return std::nullopt;
}

}  // namespace

void to_json(nlohmann::json& j, const LatencyFit& fit) {
  j = nlohmann::json{{"phase", to_string(fit.phase)},
                     {"mode", to_string(fit.mode)},
                     {"points", fit.points},
                     {"alpha_us", fit.alpha_us},
                     {"alpha_stderr_us", optional_number(fit.alpha_stderr_us)},
                     {"beta_gbps", optional_number(fit.beta_gbps)},
                     {"beta_stderr_gbps", optional_number(fit.beta_stderr_gbps)},
                     {"r_squared", fit.r_squared},
                     {"bytes_per_token", fit.bytes_per_token},
                     {"ops_per_step", fit.ops_per_step},
                     {"min_tokens", fit.min_tokens},
                     {"max_tokens", fit.max_tokens},
                     {"latency", "op_us.p50"},
                     {"model", "latency_us = alpha_us + bytes / (beta_gbps * 1e3)"}};
  if (!fit.note.empty()) j["note"] = fit.note;
}

void from_json(const nlohmann::json& j, LatencyFit& fit) {
  fit.phase = parse_phase(j.at("phase").get<std::string>());
  fit.mode = parse_mode(j.at("mode").get<std::string>());
  fit.points = json_integer_or(j, "points", 0, 0);
  fit.alpha_us = j.at("alpha_us").get<double>();
  fit.alpha_stderr_us = read_optional_number(j, "alpha_stderr_us");
  fit.beta_gbps = read_optional_number(j, "beta_gbps");
  fit.beta_stderr_gbps = read_optional_number(j, "beta_stderr_gbps");
  fit.r_squared = j.value("r_squared", 0.0);
  fit.bytes_per_token = j.value("bytes_per_token", 0.0);
  fit.ops_per_step = json_integer_or(j, "ops_per_step", 0, 0);
  fit.min_tokens = json_integer_or(j, "min_tokens", 0, 0);
  fit.max_tokens = json_integer_or(j, "max_tokens", 0, 0);
  fit.note = j.value("note", "");
}

}  // namespace k25
