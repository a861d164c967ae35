// The decode mode's comparison with back-to-back collectives: join cost per op and communication per step.
#pragma once

#include <vector>

#include "analysis/phase_result.hpp"

namespace k25 {

// For every decode-mode result that has an eager result of the same phase, kind and measured tokens: its
// join_cost (decode op_us p50 over eager op_us p50) and comm_over_back_to_back (decode comm_us p50 over eager
// step_us p50). Others get none. Replaces what the fields held.
void fill_join_costs(std::vector<PhaseResult>& results);
// The same for one decode result against `others` (the results measured so far).
void fill_join_cost(PhaseResult& decode, const std::vector<PhaseResult>& others);

}  // namespace k25
