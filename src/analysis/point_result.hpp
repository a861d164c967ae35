// Turns a gathered point and its plan into the report's PhaseResult: distributions, bandwidths, checks.
#pragma once

#include "analysis/phase_result.hpp"
#include "gather/gathered_point.hpp"
#include "plan/decode_step_plan.hpp"

namespace k25 {

// `checked` says whether the correctness pass verified any op. algbw uses the p50 step time divided by
// ops_per_step and the mean bytes per rank per op. In graph mode op_us is the per-trial step time divided by
// ops_per_step (op_us_source "step_over_ops").
PhaseResult make_phase_result(const PhasePlan& phase, TimingMode mode, const GatheredPoint& point);

}  // namespace k25
