// Coordinator-only work with its exit code broadcast to every rank.
#include "gather/coordinator_step.hpp"

#include <chrono>
#include <thread>

namespace k25 {

void run_on_coordinator(const RankContext& context, const std::function<void()>& work) {
  int code = 0;
  std::string text;
  if (context.is_coordinator()) {
    try {
      work();
    } catch (const Error& e) {
      code = static_cast<int>(e.code());
      text = e.what();
    } catch (const std::exception& e) {
      code = static_cast<int>(ExitCode::runtime_fault);
      text = e.what();
    }
  }
  MPI_Request request = MPI_REQUEST_NULL;
  K25_MPI_CHECK(MPI_Ibcast(&code, 1, MPI_INT, 0, context.world(), &request));
  for (int done = 0; !done;) {
    K25_MPI_CHECK(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
    if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (code == 0) return;
  if (context.is_coordinator()) throw SharedFailure(static_cast<ExitCode>(code), text);
  throw PeerFailed(static_cast<ExitCode>(code));
}

}  // namespace k25
