// Lets the other ranks wait for the coordinator (e.g. during the serve phase) without spinning a core.
#pragma once

#include "common/rank_context.hpp"

namespace k25 {

// Collective: a non-blocking barrier polled every few milliseconds with sleeps in between, so waiting ranks
// use no CPU (Open MPI's blocking barrier busy-polls). The coordinator calls it when its work is done.
void barrier_without_spinning(const RankContext& context);

}  // namespace k25
