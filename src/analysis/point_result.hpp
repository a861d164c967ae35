// Turns a gathered point and its plan into the report's PhaseResult: distributions, bandwidths, checks.
#pragma once

#include <string>
#include <vector>

#include "analysis/phase_result.hpp"
#include "analysis/trial_timeline.hpp"
#include "gather/gathered_point.hpp"
#include "plan/decode_step_plan.hpp"
#include "plan/graph_padding.hpp"

namespace k25 {

// `checked` says whether the correctness pass verified any op. algbw uses the p50 step time divided by
// ops_per_step and the mean bytes per rank per op. In graph mode op_us is the per-trial step time divided by
// ops_per_step (op_us_source "step_over_ops"). Decode mode: algbw uses the p50 communication time (step minus
// gaps), op_us comes from the timed trials (op_us_source "decode_trials"), and `decode` holds the gaps.
// How the point was timed, beyond its plan and mode.
struct TimingFacts {
  bool launch_is_step = false;  // the transport completes each op before launch returns (host transport)
  bool device_only = false;     // the stream was held until the burst was enqueued
  DecodeGapSpec decode;         // decode mode's gaps (sweep.decode_*)
};

// launch_us is left out where launch_is_step (it would repeat step_us). launch_bound: the host's enqueue time
// is more than half the step (p50), so the step measures the host more than the collectives.
PhaseResult make_phase_result(const PhasePlan& phase, TimingMode mode, const GatheredPoint& point,
                              const TimingFacts& timing);

// The row of a backend that did not run the point (`why`: its buffers are smaller than an op, no P2P, ...):
// what the point is, no figures.
PhaseResult not_run_result(const PhasePlan& phase, TimingMode mode, const std::string& backend,
                           const std::string& why);

// The result as reported for one requested token count: `measured` (at request.padded tokens) with the
// count the sweep asked for. Graph-mode counts that pad to the same size share one measurement.
PhaseResult result_for_request(PhaseResult measured, const GraphPadding& request);

// The trace's view of the point (coordinator): its median timed trial and its median per-op trial on every
// rank, with each rank's bytes per op and per burst taken from the plan (no enqueue time where the launch is
// the step).
TrialTimeline make_trial_timeline(const PhasePlan& phase, TimingMode mode,
                                  const std::vector<std::string>& hosts, const GatheredPoint& point,
                                  const TimingFacts& timing);

}  // namespace k25
