// MPI_Ibarrier polled with sleeps.
#include "gather/coordinator_wait.hpp"

#include <chrono>
#include <thread>

#include "common/error.hpp"

namespace k25 {

void barrier_without_spinning(const RankContext& context) {
  MPI_Request request = MPI_REQUEST_NULL;
  K25_MPI_CHECK(MPI_Ibarrier(context.world(), &request));
  int done = 0;
  while (true) {
    K25_MPI_CHECK(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
    if (done) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace k25
