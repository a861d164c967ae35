// The host transport's stand-in for the GPU's compute between two collectives (decode mode): a busy wait,
// not a sleep (whose wake-up the scheduler delays), on MPI_Wtime, the clock of the host transport's marks.
#pragma once

#include <mpi.h>

namespace k25 {

inline void host_busy_wait_us(double microseconds) {
  if (microseconds <= 0) return;
  const double until = MPI_Wtime() + microseconds * 1e-6;
  while (MPI_Wtime() < until) {
  }
}

}  // namespace k25
