// Translates a phase of the plan into the op descriptors one rank gives its transport: the transport sees
// kinds, counts and index maps, never the model.
#pragma once

#include <optional>
#include <vector>

#include "plan/collective_op.hpp"
#include "plan/decode_step_plan.hpp"
#include "plan/hang_spec.hpp"

namespace k25 {

struct RankOpOptions {
  bool include_permute = false;  // MoE dispatch pack / combine unpack around each All-to-All
  std::optional<HangSpec> hang;  // test only: the op this rank stalls before
  std::vector<double> gaps_us;   // decode mode: busy_before_us of each op (plan/decode_gaps.hpp); empty: none
  AllreduceEpilogue epilogue = AllreduceEpilogue::none;  // after each AllReduce (one row per token)
};

// The burst of `phase` as rank `rank` issues it.
OpBurst burst_for_rank(const PhasePlan& phase, int rank, const RankOpOptions& options);

}  // namespace k25
