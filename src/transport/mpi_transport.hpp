// The host transport: AllReduce and All-to-Allv over MPI on host memory, timed with MPI_Wtime. Runs anywhere.
// Each op is a non-blocking collective polled to completion; a wait longer than transport.timeout_s ends the
// job with exit code 3, naming the op and the ranks that stopped answering (common/bounded_wait.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/rank_context.hpp"
#include "common/wait_watchdog.hpp"
#include "transport/mpi_bf16_sum.hpp"
#include "transport/transport.hpp"

namespace k25 {

class MpiTransport final : public Transport {
 public:
  MpiTransport(const RunConfig& config, const RankContext& context);

  std::string name() const override { return "mpi"; }
  bool completes_on_launch() const override { return true; }
  std::string clock_description() const override;
  std::string caveat(int ranks) const override;  // says so when the ops ran non-blocking
  void allocate(const BufferSizes& sizes) override;
  void prepare(const PhasePlan& phase) override;
  void launch(const PhasePlan& phase, std::size_t op_index) override;
  int mark() override;
  void synchronize() override {}  // every op completes before launch() returns
  double elapsed_us(int from_slot, int to_slot) override;
  void reset_marks() override { marks_.clear(); }
  std::uint64_t verify(const PhasePlan& phase, std::size_t op_index) override;

 private:
  // MPI_Alltoallv arguments of one op, for this rank, in bytes.
  struct AlltoallCounts {
    std::vector<int> send_counts, send_displs, recv_counts, recv_displs;
    std::uint64_t send_total = 0;
  };
  struct PreparedPhase {
    int tokens = -1;
    std::vector<AlltoallCounts> ops;  // indexed by matrix_index
  };
  PreparedPhase& prepared(const PhasePlan& phase);
  // Runs op `op_index` and waits for it (bounded); `verifying`: the correctness pass, named on a timeout.
  void run_op(const PhasePlan& phase, std::size_t op_index, bool verifying);
  void run_allreduce(const PhasePlan& phase, std::size_t op_index, bool verifying);
  void run_alltoall(const PhasePlan& phase, std::size_t op_index, bool verifying);

  const RankContext& context_;
  bool in_place_;
  Bf16SumOp bf16_sum_;
  std::vector<std::byte> reduce_input_, reduce_output_, alltoall_send_, alltoall_recv_;
  std::array<PreparedPhase, 3> prepared_;  // by Phase
  std::vector<double> marks_;
  std::unique_ptr<WaitWatchdog> watchdog_;  // null without MPI_THREAD_MULTIPLE: polled non-blocking ops
};

}  // namespace k25
