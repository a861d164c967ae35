// Least-squares fit of latency = alpha + bytes / beta per phase, and predictions from it.
#include "analysis/latency_fit.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

#include "common/json_integer.hpp"
#include "common/optional_json.hpp"

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

BoundedFit relative_nonnegative_least_squares(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) throw std::invalid_argument("least squares: x and y differ in length");
  const std::size_t n = x.size();
  if (n < 2) throw std::invalid_argument("least squares: needs at least 2 points");
  double s = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!(y[i] > 0)) throw std::invalid_argument("relative least squares: every y must be positive");
    const double w = 1.0 / (y[i] * y[i]);
    s += w;
    sx += w * x[i];
    sy += w * y[i];
    sxx += w * x[i] * x[i];
    sxy += w * x[i] * y[i];
  }
  const double determinant = s * sxx - sx * sx;
  if (!(determinant > 0)) throw std::invalid_argument("least squares: needs at least 2 distinct x values");

  BoundedFit fit;
  fit.points = static_cast<int>(n);
  fit.slope = (s * sxy - sx * sy) / determinant;
  fit.intercept = (sxx * sy - sx * sxy) / determinant;
  int free_terms = 2;
  if (fit.intercept < 0) {  // through the origin
    fit.intercept = 0;
    fit.intercept_held_at_zero = true;
    fit.slope = sxy / sxx;
    free_terms = 1;
  } else if (fit.slope < 0) {  // flat
    fit.slope = 0;
    fit.slope_held_at_zero = true;
    fit.intercept = sy / s;
    free_terms = 1;
  }
  double weighted_residuals = 0, residual_ss = 0, mean_y = 0;
  for (const double yi : y) mean_y += yi / static_cast<double>(n);
  double total_ss = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double r = y[i] - (fit.intercept + fit.slope * x[i]);
    weighted_residuals += r * r / (y[i] * y[i]);
    residual_ss += r * r;
    total_ss += (y[i] - mean_y) * (y[i] - mean_y);
  }
  fit.r_squared = total_ss > 0 ? 1.0 - residual_ss / total_ss : 1.0;
  if (static_cast<int>(n) > free_terms && n >= 3) {
    const double sigma2 = weighted_residuals / static_cast<double>(static_cast<int>(n) - free_terms);
    if (free_terms == 2) {
      fit.slope_stderr = std::sqrt(sigma2 * s / determinant);
      fit.intercept_stderr = std::sqrt(sigma2 * sxx / determinant);
    } else if (fit.intercept_held_at_zero) {
      fit.slope_stderr = std::sqrt(sigma2 / sxx);
    } else {
      fit.intercept_stderr = std::sqrt(sigma2 / s);
    }
  }
  return fit;
}

namespace {

double bytes_of(const PhaseResult& r) {
  return !r.per_rank_bytes() ? static_cast<double>(r.bytes_per_op) : r.bytes_per_rank_mean;
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
    if (!(bytes_of(r) > 0 && op_latency_us(r) > 0)) continue;
    std::vector<const PhaseResult*>& group = groups[{r.phase, r.mode}];
    // Graph counts padded to one capture size share one measurement: it is one point of the fit.
    if (std::none_of(group.begin(), group.end(), [&](const PhaseResult* g) { return g->tokens == r.tokens; }))
      group.push_back(&r);
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
    BoundedFit line;
    try {
      line = relative_nonnegative_least_squares(x, y);
    } catch (const std::invalid_argument&) {
      continue;  // one byte count only: nothing to fit
    }
    fit.points = line.points;
    fit.alpha_us = line.intercept;
    fit.alpha_stderr_us = line.intercept_stderr;
    fit.alpha_held_at_zero = line.intercept_held_at_zero;
    fit.r_squared = line.r_squared;
    fit.bytes_per_token = tokens_sum > 0 ? bytes_sum / tokens_sum : 0.0;
    std::vector<std::string> notes;
    if (line.slope > 0) {
      fit.beta_gbps = kGbpsPerBytePerUs / line.slope;
      if (line.slope_stderr) fit.beta_stderr_gbps = *fit.beta_gbps * (*line.slope_stderr / line.slope);
    } else {
      notes.push_back("latency does not grow with bytes over the measured range: no bandwidth term");
    }
    if (line.intercept_held_at_zero)
      notes.push_back(
          "alpha held at 0 (a free fit's fixed cost was negative: the points do not lie on a line)");
    if (fit.points < 3) notes.push_back("2 points: no error estimate");
    for (const std::string& note : notes) fit.note += (fit.note.empty() ? "" : "; ") + note;
    for (std::size_t i = 0; i < group.size(); ++i) {
      const double predicted = line.intercept + line.slope * x[i];
      const double error = (predicted - y[i]) / y[i];
      fit.residuals.push_back({group[i]->tokens, x[i], y[i], predicted, error});
      fit.max_relative_error = std::max(fit.max_relative_error, std::fabs(error));
    }
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

const std::vector<int>& prediction_tokens() {
  static const std::vector<int> kTokens = {1, 64, 512};
  return kTokens;
}

StepPrediction predict_step(const LatencyFit& fit, int tokens) {
  return {tokens, predict_step_us(fit, tokens), tokens < fit.min_tokens || tokens > fit.max_tokens};
}

namespace {}  // namespace

void to_json(nlohmann::json& j, const LatencyFit& fit) {
  j = nlohmann::json{
      {"phase", to_string(fit.phase)},
      {"mode", to_string(fit.mode)},
      {"points", fit.points},
      {"alpha_us", fit.alpha_us},
      {"alpha_stderr_us", optional_json(fit.alpha_stderr_us)},
      {"beta_gbps", optional_json(fit.beta_gbps)},
      {"beta_stderr_gbps", optional_json(fit.beta_stderr_gbps)},
      {"r_squared", fit.r_squared},
      {"bytes_per_token", fit.bytes_per_token},
      {"ops_per_step", fit.ops_per_step},
      {"min_tokens", fit.min_tokens},
      {"max_tokens", fit.max_tokens},
      {"latency", "op_us.p50"},
      {"model", "latency_us = alpha_us + bytes / (beta_gbps * 1e3)"},
      {"method", "least squares of relative errors (weights 1/latency^2), alpha >= 0, beta >= 0"},
      {"alpha_held_at_zero", fit.alpha_held_at_zero},
      {"max_relative_error", fit.max_relative_error}};
  nlohmann::json residuals = nlohmann::json::array();
  for (const FitResidual& r : fit.residuals)
    residuals.push_back({{"tokens", r.tokens},
                         {"bytes", r.bytes},
                         {"measured_us", r.measured_us},
                         {"predicted_us", r.predicted_us},
                         {"relative_error", r.relative_error}});
  j["residuals"] = residuals;
  nlohmann::json predictions = nlohmann::json::array();
  for (const int tokens : prediction_tokens()) {
    const StepPrediction p = predict_step(fit, tokens);
    predictions.push_back({{"tokens", p.tokens}, {"step_us", p.step_us}, {"extrapolated", p.extrapolated}});
  }
  j["predictions"] = predictions;
  if (!fit.note.empty()) j["note"] = fit.note;
}

void from_json(const nlohmann::json& j, LatencyFit& fit) {
  fit.phase = parse_phase(j.at("phase").get<std::string>());
  fit.mode = parse_mode(j.at("mode").get<std::string>());
  fit.points = json_integer_or(j, "points", 0, 0);
  fit.alpha_us = j.at("alpha_us").get<double>();
  fit.alpha_stderr_us = optional_json_at<double>(j, "alpha_stderr_us");
  fit.beta_gbps = optional_json_at<double>(j, "beta_gbps");
  fit.beta_stderr_gbps = optional_json_at<double>(j, "beta_stderr_gbps");
  fit.r_squared = j.value("r_squared", 0.0);
  fit.bytes_per_token = j.value("bytes_per_token", 0.0);
  fit.ops_per_step = json_integer_or(j, "ops_per_step", 0, 0);
  fit.min_tokens = json_integer_or(j, "min_tokens", 0, 0);
  fit.max_tokens = json_integer_or(j, "max_tokens", 0, 0);
  fit.note = j.value("note", "");
  fit.alpha_held_at_zero = j.value("alpha_held_at_zero", false);
  fit.max_relative_error = j.value("max_relative_error", 0.0);
  fit.residuals.clear();
  for (const nlohmann::json& r : j.value("residuals", nlohmann::json::array()))
    fit.residuals.push_back({json_integer_or(r, "tokens", 0, 0), r.value("bytes", 0.0),
                             r.value("measured_us", 0.0), r.value("predicted_us", 0.0),
                             r.value("relative_error", 0.0)});
}

}  // namespace k25
