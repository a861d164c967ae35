// Bounded waits on collectives: a non-blocking MPI request polled with MPI_Test against the run's collective
// timeout, or a blocking call armed on the rank's watchdog. On expiry the rank asks every peer whether it
// still answers, prints one line naming the point and the ranks (and their hosts) that stopped answering, and
// ends the job with MPI_Abort and exit code 3.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>

#include "common/call_watchdog.hpp"
#include "common/error.hpp"
#include "common/rank_context.hpp"

namespace k25 {

// How long, after its own timeout, a rank waits for its peers' answers: they time out at about the same
// moment (they wait on the same collective), so a few seconds tell the silent ranks from the live ones.
double liveness_grace_s(const RankContext& context);

// Called on the rank whose wait expired, instead of returning: asks every peer for a sign of life (a message
// on context.liveness(), at most liveness_grace_s()), prints "k25comm: error: rank R of N (HOST): POINT did
// not complete within T s ...; ranks that stopped answering: ..." to stderr and calls
// MPI_Abort(MPI_COMM_WORLD, 3). The journal is not touched: everything gathered before is already on disk.
[[noreturn]] void end_job_after_timeout(const RankContext& context, const std::string& point);

// How long the watchdog lets its action (end_job_after_timeout: the peers' answers, then MPI_Abort) or an
// abort (ncclCommAbort) run before it ends the process itself: the liveness grace (at most 5 s) plus time for
// MPI_Abort.
constexpr double kWatchdogGraceS = 10.0;

// The rank's watchdog for blocking calls (both transports): an expired call ends the job as
// end_job_after_timeout does (from the watchdog's thread: MPI must provide MPI_THREAD_MULTIPLE, else the rank
// prints the point and ends with exit code 3 alone); an action or abort still running kWatchdogGraceS later
// ends the process: "k25comm: error: rank R of N (HOST): MESSAGE; ending this rank with exit code 3".
// `context` must outlive the watchdog.
std::unique_ptr<CallWatchdog> make_rank_watchdog(const RankContext& context);

// Polls `request` until it completes. The clock is read once every 256 polls, so the wait costs what the
// blocking call's own progress loop costs. `describe()` is called only on expiry and returns the point, e.g.
// "MPI_Iallreduce of allreduce at 16 tokens, op 37 of 122 (14,336 bytes)".
template <class Describe>
void wait_bounded(MPI_Request& request, const RankContext& context, Describe&& describe) {
  int done = 0;
  K25_MPI_CHECK(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
  if (done) return;
  const double deadline = MPI_Wtime() + context.collective_timeout_s();
  for (unsigned polls = 1;; ++polls) {
    K25_MPI_CHECK(MPI_Test(&request, &done, MPI_STATUS_IGNORE));
    if (done) return;
    if ((polls & 255u) == 0 && MPI_Wtime() > deadline) end_job_after_timeout(context, describe());
  }
}

}  // namespace k25
