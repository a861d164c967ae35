// Latency model fit: least squares recovers known alpha and beta; relative errors and alpha >= 0 keep
// predictions positive; residuals per point; extrapolated predictions marked.
#include <catch2/catch.hpp>

#include <cmath>

#include "../analysis/report_fixtures.hpp"
#include "analysis/analyze.hpp"
#include "analysis/latency_fit.hpp"
#include "report/markdown_report.hpp"

using namespace k25;
using namespace k25::test;

namespace {

// op p50 = alpha + bytes / beta exactly, for the Kimi AllReduce sizes.
std::vector<PhaseResult> synthetic_allreduce(double alpha_us, double beta_gbps, double wobble_us = 0) {
  std::vector<PhaseResult> results;
  int index = 0;
  for (int tokens : {1, 2, 4, 8, 16, 32, 64, 128, 256}) {
    PhaseResult r = allreduce_result(tokens, TimingMode::eager, 1.0);
    const double op_us = alpha_us + static_cast<double>(r.bytes_per_op) / (beta_gbps * 1e3) +
                         (index++ % 2 == 0 ? wobble_us : -wobble_us);
    r.op_us = stats_p50_p90(op_us, op_us);
    r.step_us = stats_p50_p90(op_us * 122, op_us * 122);
    results.push_back(r);
  }
  return results;
}

}  // namespace

TEST_CASE("least squares on exact points recovers intercept and slope with zero error", "[fit]") {
  const LinearFit fit = least_squares({1, 2, 3, 4}, {5, 7, 9, 11});
  CHECK(fit.points == 4);
  CHECK(fit.intercept == Approx(3.0));
  CHECK(fit.slope == Approx(2.0));
  CHECK(fit.r_squared == Approx(1.0));
  REQUIRE(fit.slope_stderr.has_value());
  CHECK(*fit.slope_stderr == Approx(0.0).margin(1e-12));
  CHECK_THROWS_AS(least_squares({1}, {1}), std::invalid_argument);
  CHECK_THROWS_AS(least_squares({2, 2}, {1, 3}), std::invalid_argument);
  CHECK_FALSE(least_squares({1, 2}, {1, 3}).slope_stderr.has_value());  // two points: no error estimate
}

TEST_CASE("the fit recovers known alpha and beta from synthetic sweep points", "[fit]") {
  const auto fits = fit_latency_models(synthetic_allreduce(25.0, 40.0));
  REQUIRE(fits.size() == 1);
  const LatencyFit& fit = fits[0];
  CHECK(fit.phase == Phase::allreduce);
  CHECK(fit.mode == TimingMode::eager);
  CHECK(fit.points == 9);
  CHECK(fit.alpha_us == Approx(25.0));
  REQUIRE(fit.beta_gbps.has_value());
  CHECK(*fit.beta_gbps == Approx(40.0));
  CHECK(fit.r_squared == Approx(1.0));
  CHECK(fit.bytes_per_token == Approx(14336.0));
  CHECK(fit.ops_per_step == 122);
  CHECK(fit.min_tokens == 1);
  CHECK(fit.max_tokens == 256);

  // One step at T = 512 (never measured): 122 x (25 us + 512 x 14,336 B / 40 GB/s).
  CHECK(predict_step_us(fit, 512) == Approx(122 * (25.0 + 512 * 14336 / 40e3)));
  CHECK(predict_op_us(fit, 14336) == Approx(25.0 + 14336 / 40e3));
}

TEST_CASE("with noise the fit's standard errors cover the true values", "[fit]") {
  const auto fits = fit_latency_models(synthetic_allreduce(25.0, 40.0, 0.5));
  REQUIRE(fits.size() == 1);
  const LatencyFit& fit = fits[0];
  REQUIRE(fit.alpha_stderr_us.has_value());
  REQUIRE(fit.beta_stderr_gbps.has_value());
  CHECK(*fit.alpha_stderr_us > 0);
  CHECK(*fit.beta_stderr_gbps > 0);
  CHECK(std::fabs(fit.alpha_us - 25.0) < 3 * *fit.alpha_stderr_us);
  CHECK(std::fabs(*fit.beta_gbps - 40.0) < 3 * *fit.beta_stderr_gbps);
}

TEST_CASE("flat latency gives no bandwidth term and says why", "[fit]") {
  std::vector<PhaseResult> flat;
  for (int tokens : {1, 2, 4}) flat.push_back(allreduce_result(tokens, TimingMode::graph, 122 * 30.0, 0));
  const auto fits = fit_latency_models(flat);
  REQUIRE(fits.size() == 1);
  CHECK(fits[0].alpha_us == Approx(30.0));
  CHECK_FALSE(fits[0].beta_gbps.has_value());
  CHECK(fits[0].note.find("does not grow") != std::string::npos);
  CHECK(predict_step_us(fits[0], 64) == Approx(122 * 30.0));
}

TEST_CASE("one fit per phase and mode, a single byte count is not fitted, JSON round trip", "[fit]") {
  std::vector<PhaseResult> results = synthetic_allreduce(25.0, 40.0);
  results.push_back(allreduce_result(1, TimingMode::graph, 2000.0));  // one point only
  results.push_back(alltoall_result(Phase::dispatch, 1, TimingMode::eager, 60 * 40.0));
  results.push_back(alltoall_result(Phase::dispatch, 16, TimingMode::eager, 60 * 90.0));
  const auto fits = fit_latency_models(results);
  REQUIRE(fits.size() == 2);
  CHECK(fits[0].phase == Phase::allreduce);
  CHECK(fits[1].phase == Phase::dispatch);
  CHECK(fits[1].points == 2);
  CHECK_FALSE(fits[1].alpha_stderr_us.has_value());

  const nlohmann::json j = fits;
  CHECK(j[0]["beta_gbps"].get<double>() == Approx(40.0));
  CHECK(j[1]["alpha_stderr_us"].is_null());
  const auto back = j.get<std::vector<LatencyFit>>();
  REQUIRE(back.size() == 2);
  CHECK(back[0].alpha_us == Approx(25.0));
  CHECK(*back[0].beta_gbps == Approx(40.0));
  CHECK(back[1].phase == Phase::dispatch);
  CHECK(back[1].ops_per_step == 60);
}

namespace {

// A dispatch sweep whose latency is flat at small sizes and steep at large ones: plain least squares gives a
// negative alpha (-46.5 us) and predicts a negative step at T=1.
std::vector<PhaseResult> convex_dispatch() {
  const std::vector<double> op_us = {45, 46, 47, 50, 55, 70, 120, 400, 1500};
  const std::vector<int> tokens = {1, 2, 4, 8, 16, 32, 64, 128, 256};
  std::vector<PhaseResult> results;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    PhaseResult r = alltoall_result(Phase::dispatch, tokens[i], TimingMode::eager, op_us[i] * 60);
    r.bytes_per_rank_mean = 7408.0 * tokens[i];
    r.op_us = stats_p50_p90(op_us[i], op_us[i]);
    results.push_back(r);
  }
  return results;
}

}  // namespace

TEST_CASE("the fit never predicts a negative time where plain least squares did", "[fit]") {
  const std::vector<PhaseResult> results = convex_dispatch();
  std::vector<double> x, y;
  for (const PhaseResult& r : results) {
    x.push_back(r.bytes_per_rank_mean);
    y.push_back(r.op_us.p50);
  }
  REQUIRE(least_squares(x, y).intercept == Approx(-46.48).margin(0.01));  // the old fit's answer

  const auto fits = fit_latency_models(results);
  REQUIRE(fits.size() == 1);
  const LatencyFit& fit = fits[0];
  CHECK(fit.alpha_us == Approx(37.57).margin(0.01));  // relative errors: the small sizes count as much
  CHECK_FALSE(fit.alpha_held_at_zero);
  for (const int tokens : {1, 2, 64, 512}) CHECK(predict_step_us(fit, tokens) > 0);
  // Within 20 % of the measured T=1 op, where plain least squares was below zero.
  REQUIRE(fit.residuals.size() == 9);
  CHECK(fit.residuals[0].tokens == 1);
  CHECK(fit.residuals[0].measured_us == Approx(45.0));
  CHECK(std::fabs(fit.residuals[0].relative_error) < 0.2);
  double worst = 0;
  for (const FitResidual& r : fit.residuals) {
    CHECK(r.relative_error == Approx((r.predicted_us - r.measured_us) / r.measured_us));
    worst = std::max(worst, std::fabs(r.relative_error));
  }
  CHECK(fit.max_relative_error == Approx(worst));
}

TEST_CASE("a fit whose free alpha would be negative holds it at zero", "[fit]") {
  // op = 2 x bytes - 0.5 exactly: the free fit's intercept is -0.5.
  const BoundedFit line = relative_nonnegative_least_squares({1, 2, 4, 8}, {1.5, 3.5, 7.5, 15.5});
  CHECK(line.intercept_held_at_zero);
  CHECK(line.intercept == 0.0);
  // Through the origin on relative errors: slope = sum(x / y) / sum((x / y)^2).
  double ratio_sum = 0, square_sum = 0;
  for (const auto& [xi, yi] :
       std::vector<std::pair<double, double>>{{1, 1.5}, {2, 3.5}, {4, 7.5}, {8, 15.5}}) {
    ratio_sum += xi / yi;
    square_sum += (xi / yi) * (xi / yi);
  }
  CHECK(line.slope == Approx(ratio_sum / square_sum));
  CHECK_FALSE(line.intercept_stderr.has_value());  // a term held at a bound has no error estimate
  REQUIRE(line.slope_stderr.has_value());
  CHECK_THROWS_AS(relative_nonnegative_least_squares({1, 2}, {1, 0}), std::invalid_argument);

  std::vector<PhaseResult> results;
  for (const int tokens : {1, 2, 4, 8}) {
    PhaseResult r = allreduce_result(tokens, TimingMode::eager, 1.0);
    const double op_us = 2.0 * static_cast<double>(r.bytes_per_op) / 14336.0 - 0.5;
    r.op_us = stats_p50_p90(op_us, op_us);
    results.push_back(r);
  }
  const auto fits = fit_latency_models(results);
  REQUIRE(fits.size() == 1);
  CHECK(fits[0].alpha_held_at_zero);
  CHECK(fits[0].alpha_us == 0.0);
  CHECK(fits[0].note.find("alpha held at 0") != std::string::npos);
  const nlohmann::json j = fits[0];
  CHECK(j["alpha_held_at_zero"] == true);
  CHECK(j["residuals"].size() == 4);
}

TEST_CASE("predictions outside the measured token range are marked extrapolated", "[fit]") {
  const auto fits = fit_latency_models(synthetic_allreduce(25.0, 40.0));  // tokens 1..256
  REQUIRE(fits.size() == 1);
  CHECK_FALSE(predict_step(fits[0], 1).extrapolated);
  CHECK_FALSE(predict_step(fits[0], 64).extrapolated);
  CHECK(predict_step(fits[0], 512).extrapolated);
  const nlohmann::json j = fits[0];
  REQUIRE(j["predictions"].size() == prediction_tokens().size());
  CHECK(j["predictions"][2]["tokens"] == 512);
  CHECK(j["predictions"][2]["extrapolated"] == true);
  CHECK(j["predictions"][0]["extrapolated"] == false);

  RunReport report = empty_report();
  report.results = synthetic_allreduce(25.0, 40.0);
  analyze_report(report);
  const std::string md = render_markdown(report);
  CHECK(md.find("25,437 **") != std::string::npos);  // 122 x (25 + 512 x 14,336 B / 40 GB/s) us at T=512
  CHECK(md.find("worst miss") != std::string::npos);
}
