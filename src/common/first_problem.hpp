// Agreement on a failure before a collective step: every rank learns the first rank's reason, so that all of
// them stop with the same message instead of some going on alone into a collective that never completes.
#pragma once

#include <mpi.h>

#include <string>

namespace k25 {

// Collective over `comm`: returns the text of the lowest rank whose `mine` is non-empty (at most 1,023
// characters of it), or an empty string when every rank's is empty.
std::string first_problem(MPI_Comm comm, const std::string& mine);

}  // namespace k25
