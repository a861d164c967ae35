// The decode timing mode's compute gaps: how long one rank keeps its stream busy before each op of a burst.
// Pure data: every rank derives its own gaps, deterministically per seed.
#pragma once

#include <cstdint>
#include <vector>

#include "config/run_config.hpp"
#include "plan/decode_step_plan.hpp"

namespace k25 {

// The skew of rank `rank` before op `op_index` of `phase` at `tokens`: uniform in [0, skew_us), a function of
// (seed, rank, phase, tokens, op_index) alone.
double decode_skew_us(const DecodeGapSpec& spec, int rank, Phase phase, int tokens, std::size_t op_index);

// The gap before each op of `phase` on rank `rank`: gap_us, plus layer_gap_us / (ops of the op's layer in the
// burst) for ops of a decoder layer (layer >= 0), plus the rank's skew.
std::vector<double> decode_gaps_us(const PhasePlan& phase, int rank, const DecodeGapSpec& spec);

// The configured gaps of one step without skew (the same on every rank): sum of decode_gaps_us at skew 0.
double configured_gaps_us(const PhasePlan& phase, const DecodeGapSpec& spec);

}  // namespace k25
