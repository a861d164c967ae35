// Latency model fit: least squares recovers known alpha and beta; the prediction of a decode step.
#include <catch2/catch.hpp>

#include <cmath>

#include "../analysis/report_fixtures.hpp"
#include "analysis/latency_fit.hpp"

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

TEST_CASE("one fit per phase and mode; a single byte count is not fitted; JSON round trip", "[fit]") {
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
