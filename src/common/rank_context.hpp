// The per-rank context: who this rank is (world and node-local rank, host) and the communicators it owns.
#pragma once

#include <mpi.h>

#include <string>

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
  RankContext();  // duplicates MPI_COMM_WORLD and splits it by shared-memory node

  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }  // rank among the ranks of this host
  int local_size() const { return local_size_; }
  int host_count() const { return host_count_; }
  const std::string& host() const { return host_; }
  bool is_coordinator() const { return rank_ == 0; }
  MPI_Comm world() const { return world_.get(); }
  MPI_Comm node() const { return node_.get(); }

 private:
  OwnedComm world_, node_;
  int rank_ = 0, size_ = 1, local_rank_ = 0, local_size_ = 1, host_count_ = 1;
  std::string host_;
};

}  // namespace k25
