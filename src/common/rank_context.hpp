// The per-rank context: who this rank is (world and node-local rank, host), where every rank runs, the
// communicators it owns, and how long a wait on them may last.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace k25 {

// Move-only owner of an MPI communicator this program created (MPI_Comm_dup / MPI_Comm_split_type).
class OwnedComm {
 public:
  OwnedComm() = default;
  explicit OwnedComm(MPI_Comm comm) : comm_(comm) {}
  OwnedComm(const OwnedComm&) = delete;
  OwnedComm& operator=(const OwnedComm&) = delete;
  OwnedComm(OwnedComm&& other) noexcept : comm_(other.comm_) { other.comm_ = MPI_COMM_NULL; }
  OwnedComm& operator=(OwnedComm&& other) noexcept;
  ~OwnedComm();
  MPI_Comm get() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// Built once after MPI_Init and passed down by reference. Rank 0 of `world` is the coordinator.
class RankContext {
 public:
  // Collective: duplicates MPI_COMM_WORLD (twice: the run's communicator and the one the check after a
  // timeout uses), splits it by shared-memory node, and shares every rank's host name and node-local rank.
  // `collective_timeout_s` bounds every wait on a collective after start-up (transport.timeout_s).
  explicit RankContext(double collective_timeout_s);

  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }  // rank among the ranks of this host
  int local_size() const { return local_size_; }
  int host_count() const { return host_count_; }
  const std::string& host() const { return host_; }
  const std::vector<std::string>& hosts() const { return hosts_; }  // every rank's host, index = world rank
  const std::vector<int>& local_ranks() const { return local_ranks_; }  // every rank's node-local rank
  bool is_coordinator() const { return rank_ == 0; }
  double collective_timeout_s() const { return collective_timeout_s_; }
  MPI_Comm world() const { return world_.get(); }
  MPI_Comm node() const { return node_.get(); }
  // Used only after a collective timed out, to find the ranks that still answer (common/bounded_wait.hpp).
  MPI_Comm liveness() const { return liveness_.get(); }

 private:
  OwnedComm world_, node_, liveness_;
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1, host_count_ = 1;
  double collective_timeout_s_ = 60.0;
  std::string host_;
  std::vector<std::string> hosts_;
  std::vector<int> local_ranks_;
};

}  // namespace k25
