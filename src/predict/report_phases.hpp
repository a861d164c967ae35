// What predict reads from a replay report's results, each rule said once for the base and the alternative
// alike: which mode stands for a phase, an op's size, and the per-op figures of a burst and of a decode step.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "analysis/phase_result.hpp"
#include "predict/predict_inputs.hpp"

namespace k25 {

// The first of `order` in which `phase` was measured; empty where it was not.
std::optional<TimingMode> first_measured_mode(const std::vector<PhaseResult>& results, Phase phase,
                                              std::initializer_list<TimingMode> order);

// An op's size as nccl-tests counts it: bytes_per_op, or for All-to-Allv the bytes one rank sends (mean).
double op_size_bytes(const PhaseResult& r);

// What the output calls a result's phase: "dispatch" and "combine" (both All-to-Allv), else its kind's title.
std::string phase_name(const PhaseResult& r);

// The curve key of a result: its kind (normalized), its phase_name, its dtype.
AltCurve phase_curve_key(const PhaseResult& r);

// One op of the burst, p50 and p90: the step's time over its ops (back to back, as nccl-tests times its
// loop), at the op's size.
AltPoint burst_op_point(const PhaseResult& r);

// One op of a decode step, p50 and p90: the step's communication (its gaps taken out) over its ops, at the
// op's size; empty for a result of another mode.
std::optional<AltPoint> decode_op_point(const PhaseResult& r);

}  // namespace k25
