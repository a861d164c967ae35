// Owner of this rank's NCCL communicator, created non-blocking so that every wait on it can be bounded.
// Destruction finalizes and destroys it (bounded); after a fault the owner aborts it instead.
#pragma once

#include <nccl.h>

#include "common/rank_context.hpp"

namespace k25::nccl {

class NcclCommunicator {
 public:
  NcclCommunicator() = default;
  // Collective over context.world(): rank 0 makes the unique id, MPI broadcasts it, every rank calls
  // ncclCommInitRankConfig with blocking = 0 on its current CUDA device and polls until the communicator is
  // ready. NCCL rank = world rank. Throws RuntimeFault (after aborting) on an error or after `timeout_s`.
  static NcclCommunicator create(const RankContext& context, double timeout_s);

  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;
  NcclCommunicator(NcclCommunicator&& other) noexcept;
  NcclCommunicator& operator=(NcclCommunicator&& other) noexcept;
  ~NcclCommunicator();  // finalize_and_destroy()

  ncclComm_t get() const { return comm_; }
  explicit operator bool() const { return comm_ != nullptr; }

  // Stops every operation of the communicator, frees it, and forgets it. Safe to call twice.
  void abort() noexcept;
  // Flushes and frees the communicator: ncclCommFinalize, polled for at most timeout_s, then ncclCommDestroy;
  // aborts instead where finalize fails or does not finish in time.
  void finalize_and_destroy() noexcept;

 private:
  NcclCommunicator(ncclComm_t comm, double timeout_s) : comm_(comm), timeout_s_(timeout_s) {}
  ncclComm_t comm_ = nullptr;
  double timeout_s_ = 60.0;
};

}  // namespace k25::nccl
