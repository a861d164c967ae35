// Non-blocking barrier polled with sleeps.
#include "serve/quiet_barrier.hpp"

#include <chrono>
#include <thread>

#include "common/error.hpp"

namespace k25 {

void quiet_barrier(MPI_Comm comm, int poll_ms) {
  MPI_Request request = MPI_REQUEST_NULL;
  K25_MPI_CHECK(MPI_Ibarrier(comm, &request));
  int done = 0;
  K25_MPI_CHECK(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
  while (done == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(poll_ms));
    K25_MPI_CHECK(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
  }
}

}  // namespace k25
