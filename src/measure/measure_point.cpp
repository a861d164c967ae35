// Warm-up, timed bursts, per-op pass and correctness pass of one point, with a collective stop decision.
#include "measure/measure_point.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <set>
#include <string>

#include <fmt/format.h>

#include "common/bounded_wait.hpp"
#include "common/error.hpp"
#include "common/interrupt.hpp"

namespace k25 {
namespace {

enum StopFlags : int { keep_going = 0, budget_spent = 1, interrupted = 2 };

// One pass of trials of a point: "warm-up", "timed" or "per-op", for messages about a wait that timed out.
struct TrialPass {
  const char* name;
  const std::string& point;
  const RankContext& context;
};

// How long a pass runs: at most `max` trials; once `min` ran, none starts after `budget_s` seconds.
struct TrialLimits {
  int max = 1;
  int min = 1;
  double budget_s = 0;
};

// The barrier that aligns the ranks before a trial, bounded by the collective timeout (outside the timed
// region).
void trial_barrier(const TrialPass& pass, int trial) {
  MPI_Request request = MPI_REQUEST_NULL;
  K25_MPI_CHECK(MPI_Ibarrier(pass.context.world(), &request));
  wait_bounded(request, pass.context, [&] {
    return fmt::format("MPI_Ibarrier before {} trial {} of {}", pass.name, trial, pass.point);
  });
}

// Decides, with every rank, whether another trial runs: the coordinator owns the count and time budget, any
// rank may report an interrupt. One small allreduce, outside the timed region. The maximum of the flags keeps
// `interrupted` (it outranks `budget_spent`); a rank that was not signalled records the peer's signal number.
int collective_stop(const TrialPass& pass, int trials_done, const TrialLimits& limits,
                    std::chrono::steady_clock::time_point started) {
  int local[2] = {keep_going, interrupt_signal()};
  if (pass.context.is_coordinator()) {
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (trials_done >= limits.max || (trials_done >= limits.min && spent >= limits.budget_s))
      local[0] |= budget_spent;
  }
  if (local[1] != 0) local[0] |= interrupted;
  int decision[2] = {keep_going, 0};
  MPI_Request request = MPI_REQUEST_NULL;
  K25_MPI_CHECK(MPI_Iallreduce(local, decision, 2, MPI_INT, MPI_MAX, pass.context.world(), &request));
  wait_bounded(request, pass.context, [&] {
    return fmt::format("MPI_Iallreduce of the stop decision after {} trial {} of {}", pass.name, trials_done,
                       pass.point);
  });
  if (decision[1] != 0 && interrupt_signal() == 0) request_interrupt(decision[1]);
  return decision[0];
}

// The trial protocol, the same for every pass (warm-up, timed, per-op): rounds of one trial per contender,
// each trial after a barrier (`body(c)` is contender c's), then the collective stop decision, so every rank
// runs the same trials. Returns false when a signal (on any rank) ended the pass.
bool run_rounds(const TrialPass& pass, const TrialLimits& limits, std::size_t contenders,
                const std::function<void(std::size_t contender)>& body) {
  const auto started = std::chrono::steady_clock::now();
  for (int trial = 0;; ++trial) {
    for (std::size_t c = 0; c < contenders; ++c) {
      trial_barrier(pass, trial);
      body(c);
    }
    const int stop = collective_stop(pass, trial + 1, limits, started);
    if (stop & interrupted) return false;
    if (stop & budget_spent) return true;
  }
}

// The coordinator's check at an op boundary (a load of the signal flag: nothing that perturbs the timing).
void stop_if_coordinator_interrupted(const RankContext& context) {
  if (context.is_coordinator() && interrupt_signal() != 0) throw PointAbandoned(interrupt_signal());
}

// Runs the whole burst: the captured graph, or every op launched one by one.
void run_burst(Transport& transport, const PhasePlan& phase, BurstId burst, CapturedBurst* graph,
               const RankContext& context) {
  if (graph != nullptr) {
    transport.replay(*graph);
    return;
  }
  for (std::size_t i = 0; i < phase.ops.size(); ++i) {
    if (i > 0) stop_if_coordinator_interrupted(context);
    transport.launch(burst, i);
  }
}

// Decode mode: each op preceded by its gap, with a timestamp after each gap and after each op (slots[2i] and
// slots[2i + 1]). The timestamps are not inside the ops: they separate gap from collective.
void run_decode_burst(Transport& transport, const PhasePlan& phase, BurstId burst, std::vector<int>& slots,
                      const RankContext& context) {
  for (std::size_t i = 0; i < phase.ops.size(); ++i) {
    if (i > 0) stop_if_coordinator_interrupted(context);
    transport.launch_gap(burst, i);
    slots[2 * i] = transport.mark();
    transport.launch(burst, i);
    slots[2 * i + 1] = transport.mark();
  }
}

// Splits one decode trial at its timestamps: each op's gap and collective, the trial's spans for the trace,
// and the step's gaps and communication.
void record_decode_trial(Transport& transport, int begin, const std::vector<int>& slots, double step_us,
                         const PhasePlan& phase, PointSamples& samples) {
  double gaps = 0;
  std::vector<OpSpan> spans(phase.ops.size());
  int previous = begin;
  for (std::size_t i = 0; i < phase.ops.size(); ++i) {
    gaps += transport.elapsed_us(previous, slots[2 * i]);
    samples.op_us.push_back(transport.elapsed_us(slots[2 * i], slots[2 * i + 1]));
    spans[i] = OpSpan{static_cast<int>(i), phase.ops[i].layer, transport.elapsed_us(begin, slots[2 * i]),
                      transport.elapsed_us(begin, slots[2 * i + 1])};
    previous = slots[2 * i + 1];
  }
  samples.op_trial_spans.push_back(std::move(spans));
  ++samples.op_trials;
  samples.gap_us.push_back(gaps);
  samples.comm_us.push_back(step_us - gaps);
}

}  // namespace

PointAbandoned::PointAbandoned(int signal_number)
    : Error(ExitCode::interrupted, "interrupted by signal " + std::to_string(signal_number)) {}

std::vector<std::size_t> ops_to_verify(const PhasePlan& phase) {
  std::vector<std::size_t> chosen;
  if (phase.ops.empty()) return chosen;
  if (phase.kind != CollectiveKind::alltoallv) {
    std::set<std::size_t> sizes;
    for (std::size_t i = 0; i < phase.ops.size(); ++i)
      if (sizes.insert(phase.ops[i].bytes).second) chosen.push_back(i);
    return chosen;
  }
  const std::set<std::size_t> picks = {0, phase.ops.size() / 2, phase.ops.size() - 1};
  return {picks.begin(), picks.end()};
}

PointSamples measure_point(Transport& transport, const PhasePlan& phase, BurstId burst, TimingMode mode,
                           const SweepSpec& sweep, const RankContext& context) {
  return measure_contenders({{&transport, burst}}, phase, mode, sweep, context).front();
}

std::vector<PointSamples> measure_contenders(const std::vector<PointContender>& contenders,
                                             const PhasePlan& phase, TimingMode mode, const SweepSpec& sweep,
                                             const RankContext& context) {
  const std::size_t count = contenders.size();
  std::vector<PointSamples> all(count);
  const std::string point =
      fmt::format("{} at {} tokens, {}", to_string(phase.phase), phase.tokens, to_string(mode));
  for (PointSamples& samples : all) samples.point = point;
  stop_if_coordinator_interrupted(context);  // between points: no peer is inside a collective of this point
  std::vector<std::unique_ptr<CapturedBurst>> graphs(count);
  if (mode == TimingMode::graph)
    for (std::size_t c = 0; c < count; ++c) graphs[c] = contenders[c].transport->capture(contenders[c].burst);
  // Each contender's budget is the point's: interleaved, they share the wall time.
  const double budget_s = sweep.time_budget_s * static_cast<double>(count);

  // Warm-up: `warmup` bursts, or fewer once they took the point's time budget, and always at least one: the
  // first ops of a point connect NCCL's peers and load its kernels.
  const bool warmed_up = run_rounds(
      {"warm-up", point, context}, {std::max(sweep.warmup, 1), 1, budget_s}, count, [&](std::size_t c) {
        Transport& transport = *contenders[c].transport;
        transport.begin_trial();
        run_burst(transport, phase, contenders[c].burst, graphs[c].get(), context);
        transport.synchronize();
      });
  // A signal ends the point on every rank, with what was measured.
  const auto interrupted_point = [&] {
    for (PointSamples& samples : all) samples.interrupted = true;
    return all;
  };
  if (!warmed_up) return interrupted_point();

  // Timed trials of the whole burst. Host clock reads bracket the two timestamps, outside the timed interval:
  // arrival = barrier exit to burst start (what a late rank shows), launch = the host's enqueue time.
  using HostClock = std::chrono::steady_clock;
  const auto host_us = [](HostClock::time_point from, HostClock::time_point to) {
    return std::chrono::duration<double, std::micro>(to - from).count();
  };
  for (PointSamples& samples : all) samples.step_us.reserve(static_cast<std::size_t>(sweep.iterations));
  // Decode mode launches eagerly and never holds the stream: its gaps keep the device busy while the host
  // enqueues, as the compute of a real step does.
  const bool decode = mode == TimingMode::decode;
  const bool hold = sweep.device_only && !decode;
  std::vector<int> decode_slots(decode ? 2 * phase.ops.size() : 0);
  const bool timed = run_rounds({"timed", point, context}, {sweep.iterations, sweep.min_iterations, budget_s},
                                count, [&](std::size_t c) {
                                  Transport& transport = *contenders[c].transport;
                                  PointSamples& samples = all[c];
                                  const BurstId burst = contenders[c].burst;
                                  const auto barrier_exit = HostClock::now();
                                  transport.begin_trial();
                                  transport.reset_marks();
                                  if (hold) transport.hold_stream();
                                  const auto launch_start = HostClock::now();
                                  const int begin = transport.mark();
                                  if (decode) {
                                    run_decode_burst(transport, phase, burst, decode_slots, context);
                                  } else {
                                    run_burst(transport, phase, burst, graphs[c].get(), context);
                                  }
                                  const int end = transport.mark();
                                  const auto launch_end = HostClock::now();
                                  if (hold) transport.release_stream();
                                  transport.synchronize();
                                  samples.step_us.push_back(transport.elapsed_us(begin, end));
                                  if (decode)
                                    record_decode_trial(transport, begin, decode_slots,
                                                        samples.step_us.back(), phase, samples);
                                  samples.launch_us.push_back(host_us(launch_start, launch_end));
                                  samples.arrival_us.push_back(host_us(barrier_exit, launch_start));
                                });
  if (!timed) return interrupted_point();

  // Per-op pass (eager only: inside a graph the ops cannot be timed one by one without changing what is
  // replayed).
  if (mode == TimingMode::eager && sweep.op_iterations > 0) {
    const std::size_t ops = phase.ops.size();
    std::vector<int> slots(ops + 1);
    const TrialLimits limits{sweep.op_iterations, std::min(sweep.min_iterations, sweep.op_iterations),
                             budget_s};
    const bool per_op = run_rounds({"per-op", point, context}, limits, count, [&](std::size_t c) {
      Transport& transport = *contenders[c].transport;
      PointSamples& samples = all[c];
      transport.begin_trial();
      transport.reset_marks();
      slots[0] = transport.mark();
      for (std::size_t i = 0; i < ops; ++i) {
        if (i > 0) stop_if_coordinator_interrupted(context);
        transport.launch(contenders[c].burst, i);
        slots[i + 1] = transport.mark();
      }
      transport.synchronize();
      std::vector<OpSpan> spans(ops);
      for (std::size_t i = 0; i < ops; ++i) {
        samples.op_us.push_back(transport.elapsed_us(slots[i], slots[i + 1]));
        spans[i] = OpSpan{static_cast<int>(i), phase.ops[i].layer, transport.elapsed_us(slots[0], slots[i]),
                          transport.elapsed_us(slots[0], slots[i + 1])};
      }
      samples.op_trial_spans.push_back(std::move(spans));
      ++samples.op_trials;
    });
    if (!per_op) return interrupted_point();
  }

  // Correctness pass, outside every timed region: the AllReduce burst whole, as it runs in a step (so that an
  // op racing the next one over the same buffers is caught); the other kinds op by op.
  if (sweep.check) {
    for (std::size_t c = 0; c < count; ++c) {
      Transport& transport = *contenders[c].transport;
      PointSamples& samples = all[c];
      if (phase.kind == CollectiveKind::allreduce) {
        samples.wrong += transport.verify_burst(contenders[c].burst);
        samples.checked_ops += static_cast<int>(phase.ops.size());
        continue;
      }
      for (std::size_t i : ops_to_verify(phase)) {
        samples.wrong += transport.verify(contenders[c].burst, i);
        ++samples.checked_ops;
      }
    }
  }
  return all;
}

}  // namespace k25
