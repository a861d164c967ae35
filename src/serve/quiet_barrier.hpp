// A barrier that does not spin a core: how ranks other than 0 wait while rank 0 runs the serve phase.
#pragma once

#include <mpi.h>

namespace k25 {

// Every rank of `comm` calls it (rank 0 after the serve phase, the others at once). MPI_Ibarrier, then
// MPI_Test every `poll_ms` with a sleep in between: an idle rank costs no CPU, unlike a blocking MPI_Barrier,
// which busy-polls in Open MPI. Errors throw RuntimeFault (via K25_MPI_CHECK).
void quiet_barrier(MPI_Comm comm, int poll_ms = 5);

}  // namespace k25
