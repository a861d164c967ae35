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
// burst) for ops of a decoder layer (layer >= 0), plus the rank's skew. With captured shapes: the shape of
// the phase's kind at the batch nearest its tokens gives each op its gap, and the rank its arrival, drawn
// (seeded as the skew) from the captured rank's distribution.
std::vector<double> decode_gaps_us(const PhasePlan& phase, int rank, const DecodeGapSpec& spec);

// The captured shape `phase` takes (its kind, the batch nearest its tokens); nullptr where there is none.
const CapturedShape* captured_shape_for(const PhasePlan& phase, const DecodeGapSpec& spec);

// A value drawn from `stats` at `unit` in [0, 1): on the straight lines through (0, min), (0.5, p50),
// (0.9, p90), (0.99, p99) and (1, max).
double stats_quantile(const Stats& stats, double unit);

// The decode shape in one line, the same for the same gaps, skew and seed, or the same captured shapes (the
// seed aside: it draws from the same distributions), wherever it is made (a replay's report.json, predict
// from the capture the shapes came from): "gap 20 us + 0 us per layer, skew < 60 us, seed 1", or "captured:
// AllReduce batch 1 gap 54.2 us, 8 ranks' arrivals; ... (#a1b2c3d4)".
std::string shape_key(const DecodeGapSpec& spec);

// The configured gaps of one step without skew (the same on every rank): sum of decode_gaps_us at skew 0.
double configured_gaps_us(const PhasePlan& phase, const DecodeGapSpec& spec);

}  // namespace k25
