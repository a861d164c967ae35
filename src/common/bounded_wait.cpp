// What a rank does when a collective did not complete in time: find the peers that stopped answering, say so,
// end the job (MPI_Abort, exit code 3).
#include "common/bounded_wait.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include <fmt/format.h>

namespace k25 {
namespace {

constexpr int kLivenessTag = 1414;

// "2, 3 (k25-1-h2), 5 (k25-1-h3)": ranks grouped by host, hosts in the order of their first rank.
std::string ranks_with_hosts(const std::vector<int>& ranks, const std::vector<std::string>& hosts) {
  std::vector<std::string> order;
  for (int r : ranks) {
    const std::string& host = hosts.at(static_cast<std::size_t>(r));
    if (std::find(order.begin(), order.end(), host) == order.end()) order.push_back(host);
  }
  std::vector<std::string> groups;
  for (const std::string& host : order) {
    std::vector<int> on_host;
    for (int r : ranks)
      if (hosts.at(static_cast<std::size_t>(r)) == host) on_host.push_back(r);
    groups.push_back(fmt::format("{} ({})", fmt::join(on_host, ", "), host));
  }
  return fmt::format("{}", fmt::join(groups, ", "));
}

}  // namespace

double liveness_grace_s(const RankContext& context) {
  return std::min(context.collective_timeout_s(), 5.0);
}

void end_job_after_timeout(const RankContext& context, const std::string& point) {
  // Every rank that times out sends its rank to every peer and listens for theirs. The buffers live in this
  // frame, which never returns: sends to a lost peer stay pending until MPI_Abort.
  const int ranks = context.size(), me = context.rank();
  const auto n = static_cast<std::size_t>(ranks);
  std::vector<int> inbox(n, -1);
  std::vector<MPI_Request> receives(n, MPI_REQUEST_NULL), sends(n, MPI_REQUEST_NULL);
  const MPI_Comm comm = context.liveness();
  bool check_ran = true;
  for (int peer = 0; peer < ranks; ++peer) {
    if (peer == me) continue;
    const auto p = static_cast<std::size_t>(peer);
    check_ran &= MPI_Irecv(&inbox[p], 1, MPI_INT, peer, kLivenessTag, comm, &receives[p]) == MPI_SUCCESS;
    check_ran &= MPI_Isend(&me, 1, MPI_INT, peer, kLivenessTag, comm, &sends[p]) == MPI_SUCCESS;
  }
  const auto grace = std::chrono::duration<double>(liveness_grace_s(context));
  const auto started = std::chrono::steady_clock::now();
  std::vector<int> silent;
  while (check_ran) {
    silent.clear();
    for (int peer = 0; peer < ranks; ++peer) {
      const auto p = static_cast<std::size_t>(peer);
      if (peer == me || receives[p] == MPI_REQUEST_NULL) continue;
      int done = 0;
      if (MPI_Test(&receives[p], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) done = 0;
      if (!done) silent.push_back(peer);
    }
    if (silent.empty() || std::chrono::steady_clock::now() - started > grace) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

  std::string answers;
  if (!check_ran) {
    answers = "the check for ranks that stopped answering could not run";
  } else if (silent.empty()) {
    answers = "every other rank still answers (the collective itself is stuck)";
  } else {
    answers = fmt::format("ranks that stopped answering within {:g} s: {}", liveness_grace_s(context),
                          ranks_with_hosts(silent, context.hosts()));
  }
  fmt::print(
      stderr,
      "k25comm: error: rank {} of {} ({}): {} did not complete within the {:g} s timeout (transport.timeout_s); {}; ending the job (MPI_Abort, exit code 3)\n",
      me, ranks, context.host(), point, context.collective_timeout_s(), answers);
  std::fflush(nullptr);
  MPI_Abort(MPI_COMM_WORLD, static_cast<int>(ExitCode::runtime_fault));
  std::_Exit(static_cast<int>(ExitCode::runtime_fault));  // MPI_Abort does not return
}

namespace {

// The last resort, from the watchdog's monitor thread: no MPI call (it could block), only the message and
// the exit.
[[noreturn]] void end_rank_now(const RankContext& context, const std::string& message) {
  fmt::print(stderr, "k25comm: error: rank {} of {} ({}): {}; ending this rank with exit code 3\n",
             context.rank(), context.size(), context.host(), message);
  std::fflush(nullptr);
  std::_Exit(static_cast<int>(ExitCode::runtime_fault));
}

}  // namespace

std::unique_ptr<CallWatchdog> make_rank_watchdog(const RankContext& context) {
  int level = MPI_THREAD_SINGLE;
  if (MPI_Query_thread(&level) != MPI_SUCCESS) level = MPI_THREAD_SINGLE;
  const bool peers_from_thread = level == MPI_THREAD_MULTIPLE;
  return std::make_unique<CallWatchdog>(
      context.collective_timeout_s(), kWatchdogGraceS,
      [&context, peers_from_thread](const std::string& point) {
        if (peers_from_thread) end_job_after_timeout(context, point);
        end_rank_now(context,
                     fmt::format("{} did not complete within the {:g} s timeout (transport.timeout_s)", point,
                                 context.collective_timeout_s()));
      },
      [&context](const std::string& message) { end_rank_now(context, message); });
}

}  // namespace k25
