// measure_point and gather_point on real MPI ranks with a scripted transport: trial counts, the maximum over
// ranks, the host launch time, the slowest (late-arriving) rank, wrong counts and interrupts. Run under
// mpirun -np 3; every rank runs every test case in the same order (they are collective).
#include <mpi.h>
#include <catch2/catch.hpp>

#include "../unit/catch_session.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>

#include "analysis/point_result.hpp"
#include "common/interrupt.hpp"
#include "common/rank_context.hpp"
#include "gather/gathered_point.hpp"
#include "measure/measure_point.hpp"

namespace {

using Clock = std::chrono::steady_clock;

void busy_wait_us(double us) {
  const auto until = Clock::now() + std::chrono::duration<double, std::micro>(us);
  while (Clock::now() < until) {
  }
}

// A transport whose clock is scripted: the time between slots a and b on rank r in trial t is
// (b - a) x 10 (r + 1) + t microseconds, so every gathered figure is known exactly. Trials are counted by
// begin_trial() (warm-up, timed and per-op trials alike).
class ScriptedTransport final : public k25::Transport {
 public:
  ScriptedTransport(int rank, bool completes_on_launch)
      : rank_(rank), completes_on_launch_(completes_on_launch) {}

  double launch_busy_us = 0;  // host time each launch() takes
  double late_us = 0;         // this rank's arrival delay at every trial
  int interrupt_at_trial = -1;
  int trials = 0;
  int launches = 0;
  std::vector<int>* trial_log =
      nullptr;  // where begin_trial() records `id` (several transports of one point)
  int id = 0;

  std::string name() const override { return "scripted"; }
  std::string clock_description() const override { return "scripted"; }
  bool completes_on_launch() const override { return completes_on_launch_; }
  void begin_trial() override {
    ++trials;
    if (trial_log != nullptr) trial_log->push_back(id);
    if (trials == interrupt_at_trial) k25::request_interrupt(SIGTERM);
    if (late_us > 0) busy_wait_us(late_us);
  }
  void allocate(const k25::BufferSizes&) override {}
  k25::BurstId prepare(const k25::OpBurst&) override { return 0; }
  void launch(k25::BurstId, std::size_t) override {
    ++launches;
    if (launch_busy_us > 0) busy_wait_us(launch_busy_us);
  }
  void launch_gap(k25::BurstId, std::size_t) override { ++gaps; }
  int gaps = 0;
  int mark() override { return next_slot_++; }
  void synchronize() override {}
  double elapsed_us(int from, int to) override { return (to - from) * unit_us() + trials; }
  double unit_us() const { return 10.0 * (late_clock_short ? 1 : rank_ + 1); }
  bool late_clock_short = false;  // this rank's scripted steps are the shortest (as a late arriver's are)
  void reset_marks() override { next_slot_ = 0; }
  std::uint64_t verify(k25::BurstId, std::size_t) override { return static_cast<std::uint64_t>(rank_) + 1; }
  // The AllReduce burst's check (the measure loop's for an AllReduce phase): one per point, as verify()
  // above.
  std::uint64_t verify_burst(k25::BurstId) override { return static_cast<std::uint64_t>(rank_) + 1; }

 private:
  int rank_;
  bool completes_on_launch_;
  int next_slot_ = 0;
};

k25::PhasePlan allreduce_burst(int ops, int ranks) {
  k25::PhasePlan phase{k25::Phase::allreduce, 4, ranks, k25::Dtype::bf16, 0, {}, {}};
  for (int i = 0; i < ops; ++i) phase.ops.push_back({k25::Phase::allreduce, i / 2, 4096, -1});
  return phase;
}

k25::SweepSpec sweep(int iterations, int op_iterations) {
  k25::SweepSpec s;
  s.warmup = 2;
  s.iterations = iterations;
  s.min_iterations = 1;
  s.op_iterations = op_iterations;
  s.time_budget_s = 1e6;
  return s;
}

}  // namespace

TEST_CASE("backends of one point run in interleaved rounds, the same trials each, each checked") {
  const k25::RankContext context(60.0);
  std::vector<int> log;
  ScriptedTransport first(context.rank(), true), second(context.rank(), true);
  first.trial_log = second.trial_log = &log;
  second.id = 1;
  const auto phase = allreduce_burst(6, context.size());
  const auto samples = k25::measure_contenders({{&first, 0}, {&second, 0}}, phase, k25::TimingMode::eager,
                                               sweep(7, 3), context);
  REQUIRE(samples.size() == 2);
  for (const auto& s : samples) {
    CHECK(s.step_us.size() == 7);
    CHECK(s.op_trials == 3);
    CHECK(s.wrong == static_cast<std::uint64_t>(context.rank()) + 1);
    CHECK(s.checked_ops == 6);
  }
  // Warm-up, timed and per-op trials: one of each backend in turn, never two of one in a row.
  REQUIRE(log.size() == 2 * (2 + 7 + 3));
  for (std::size_t i = 0; i < log.size(); ++i) CHECK(log[i] == static_cast<int>(i % 2));
}

TEST_CASE("trial counts, the maximum over ranks and the wrong count are exact") {
  const k25::RankContext context(60.0);
  ScriptedTransport transport(context.rank(), true);
  const auto phase = allreduce_burst(6, context.size());
  const auto samples = k25::measure_point(transport, phase, 0, k25::TimingMode::eager, sweep(7, 3), context);
  CHECK(samples.step_us.size() == 7);
  CHECK(samples.launch_us.size() == 7);
  CHECK(samples.arrival_us.size() == 7);
  CHECK(samples.op_trials == 3);
  CHECK(samples.op_us.size() == 3 * 6);
  CHECK(transport.trials == 2 + 7 + 3);          // warm-up, timed, per-op
  CHECK(transport.launches == (2 + 7 + 3) * 6);  // verify() checks without launch() here
  CHECK(samples.checked_ops == 6);               // the AllReduce burst's check covers every op

  const auto point = k25::gather_point(samples, context);
  if (context.is_coordinator()) {
    const double slowest_unit = 10.0 * context.size();  // the last rank's scripted clock runs slowest
    REQUIRE(point.step_us.size() == 7);
    for (std::size_t t = 0; t < 7; ++t) CHECK(point.step_us[t] == slowest_unit + 2 + 1 + t);  // after warm-up
    REQUIRE(point.op_us.size() == 18);
    CHECK(point.op_us.front() == slowest_unit + 2 + 7 + 1);  // first per-op trial
    const auto n = static_cast<unsigned long long>(context.size());
    CHECK(point.wrong == n * (n + 1) / 2);  // verify() returns rank + 1 on each rank
    CHECK(point.rank_arrival_p50.size() == static_cast<std::size_t>(context.size()));
  }
}

TEST_CASE("decode mode times each op after its gap in the timed trials, and its communication is exact") {
  const k25::RankContext context(60.0);
  ScriptedTransport transport(context.rank(), true);
  const std::size_t ops = 6;
  const auto phase = allreduce_burst(static_cast<int>(ops), context.size());
  const auto samples = k25::measure_point(transport, phase, 0, k25::TimingMode::decode, sweep(5, 3), context);
  CHECK(samples.step_us.size() == 5);
  CHECK(transport.trials == 2 + 5);  // warm-up and timed: the timed trials are the per-op pass
  CHECK(transport.gaps == static_cast<int>(5 * ops));  // one gap before every timed op (warm-up: no gaps)
  REQUIRE(samples.op_trials == 5);
  REQUIRE(samples.op_us.size() == 5 * ops);
  REQUIRE(samples.gap_us.size() == 5);
  REQUIRE(samples.comm_us.size() == 5);
  // Scripted clock: any two slots a < b are (b - a) u + t apart (u = 10 (r + 1), t = trials so far). A trial
  // marks begin, then after each gap and after each op, then end: the step spans 2 ops + 1 slots, each gap
  // and each op one slot.
  const double u = transport.unit_us();
  for (std::size_t t = 0; t < 5; ++t) {
    const double trial = 2 + 1 + static_cast<double>(t);
    CHECK(samples.step_us[t] == (2 * ops + 1) * u + trial);
    CHECK(samples.gap_us[t] == ops * (u + trial));
    CHECK(samples.comm_us[t] == samples.step_us[t] - samples.gap_us[t]);
    CHECK(samples.op_us[t * ops] == u + trial);
  }
  REQUIRE(samples.op_trial_spans.size() == 5);
  CHECK(samples.op_trial_spans[0][1].start_us == 3 * u + 3);  // after gap 0, op 0 and gap 1

  const auto point = k25::gather_point(samples, context);
  if (context.is_coordinator()) {
    REQUIRE(point.comm_us.size() == 5);
    REQUIRE(point.gap_us == samples.gap_us);  // the coordinator's own
    k25::TimingFacts facts{true, false, {}};
    facts.decode.gap_us = 10;
    facts.decode.layer_gap_us = 4;  // 2 ops per layer: 2 us before each
    const auto result = k25::make_phase_result(phase, k25::TimingMode::decode, point, facts);
    REQUIRE(result.decode.has_value());
    CHECK(result.decode->gap_configured_us == ops * 12.0);
    CHECK(result.decode->gap_expected_us == ops * 12.0);  // no skew
    CHECK(result.op_us_source == "decode_trials");
    CHECK(result.op_iterations == 5);
    // first trial (t = 3) on the slowest rank's clock: comm = (2 ops + 1) u + t - ops (u + t)
    const double slowest_unit = 10.0 * context.size();
    CHECK(point.comm_us[0] == (ops + 1) * slowest_unit + 3.0 * (1.0 - static_cast<double>(ops)));
    CHECK(result.decode->comm_us.max == point.comm_us[0]);  // later trials add t (1 - ops) < 0
  }
}

TEST_CASE("the time budget stops a point after min_iterations, on every rank alike") {
  const k25::RankContext context(60.0);
  ScriptedTransport transport(context.rank(), true);
  auto s = sweep(1000, 0);
  s.min_iterations = 3;
  s.time_budget_s = 1e-9;
  const auto samples = k25::measure_point(transport, allreduce_burst(2, context.size()), 0,
                                          k25::TimingMode::eager, s, context);
  CHECK(samples.step_us.size() == 3);
  CHECK(samples.op_trials == 0);
}

TEST_CASE("the host launch time is recorded, and left out of the result where the launch is the step") {
  const k25::RankContext context(60.0);
  ScriptedTransport asynchronous(context.rank(), false);
  asynchronous.launch_busy_us = 2000;  // 4 ops: at least 8 ms of host time per burst
  const auto phase = allreduce_burst(4, context.size());
  const auto samples =
      k25::measure_point(asynchronous, phase, 0, k25::TimingMode::eager, sweep(3, 0), context);
  for (double launch : samples.launch_us) CHECK(launch >= 8000.0);
  const auto point = k25::gather_point(samples, context);
  if (context.is_coordinator()) {
    const auto result = k25::make_phase_result(phase, k25::TimingMode::eager, point, {false, false, {}});
    REQUIRE(result.launch_us.has_value());
    CHECK(result.launch_us->min >= 8000.0);
    // scripted steps are 40 (r + 1) + t us, far below 8 ms of launching: launch-bound
    CHECK(result.launch_bound);
    const auto blocking = k25::make_phase_result(phase, k25::TimingMode::eager, point, {true, false, {}});
    CHECK_FALSE(blocking.launch_us.has_value());
    CHECK_FALSE(blocking.launch_bound);
  }
}

TEST_CASE("the slowest rank is the one that arrives late, though it measures the shortest step") {
  const k25::RankContext context(60.0);
  const int late_rank = context.size() - 1;
  ScriptedTransport transport(context.rank(), true);
  if (context.rank() == late_rank) {
    transport.late_us = 200000;  // 200 ms after every barrier
    transport.late_clock_short = true;
  }
  const auto samples = k25::measure_point(transport, allreduce_burst(2, context.size()), 0,
                                          k25::TimingMode::eager, sweep(5, 0), context);
  const auto point = k25::gather_point(samples, context);
  if (context.is_coordinator()) {
    CHECK(point.slowest_rank == late_rank);
    CHECK(point.arrival_lead_us >= 150000.0);
    // the longest median step (the rule before) would have named another rank
    const auto& steps = point.rank_step_p50;
    CHECK(std::max_element(steps.begin(), steps.end()) - steps.begin() != late_rank);
  }
}

TEST_CASE("a signal on one rank ends the point on every rank at the next trial boundary") {
  const k25::RankContext context(60.0);
  ScriptedTransport transport(context.rank(), true);
  if (context.rank() == 1 % context.size()) transport.interrupt_at_trial = 2 + 2;  // the second timed trial
  const auto samples = k25::measure_point(transport, allreduce_burst(2, context.size()), 0,
                                          k25::TimingMode::eager, sweep(50, 3), context);
  CHECK(samples.interrupted);
  CHECK(samples.step_us.size() == 2);
  CHECK(samples.op_trials == 0);
  CHECK(k25::interrupt_signal() == SIGTERM);  // peers record the signal number too
  k25::request_interrupt(0);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int failed = run_catch_session(argc, argv);
  MPI_Finalize();
  return failed == 0 ? 0 : 1;
}
