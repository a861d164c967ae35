// The host transport: AllReduce, AllGather, ReduceScatter and All-to-Allv over MPI on host memory, timed with
// MPI_Wtime. Runs anywhere. Each op is a blocking MPI call armed on a watchdog thread (or, without
// MPI_THREAD_MULTIPLE, a non-blocking one polled to completion); a wait longer than transport.timeout_s ends
// the job with exit code 3, naming the op and the ranks that stopped answering (common/bounded_wait.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/call_watchdog.hpp"
#include "common/rank_context.hpp"
#include "transport/mpi_bf16_sum.hpp"
#include "transport/peer_layout.hpp"
#include "transport/transport.hpp"
#include "transport/transport_options.hpp"

namespace k25 {

class MpiTransport final : public Transport {
 public:
  MpiTransport(const TransportOptions& options, const RankContext& context);

  std::string name() const override { return "mpi"; }
  bool completes_on_launch() const override { return true; }
  std::string clock_description() const override;
  std::string caveat(int ranks) const override;  // says so when the ops ran non-blocking
  void allocate(const BufferSizes& sizes) override;
  [[nodiscard]] BurstId prepare(const OpBurst& burst) override;
  void launch(BurstId burst, std::size_t op_index) override;
  void launch_gap(BurstId burst, std::size_t op_index) override;  // a host busy wait
  [[nodiscard]] int mark() override;
  void synchronize() override {}  // every op completes before launch() returns
  [[nodiscard]] double elapsed_us(int from_slot, int to_slot) override;
  void reset_marks() override { marks_.clear(); }
  [[nodiscard]] std::uint64_t verify(BurstId burst, std::size_t op_index) override;
  [[nodiscard]] std::uint64_t verify_burst(BurstId burst) override;

 private:
  struct PreparedOp {
    std::vector<int> send_counts, send_displs, recv_counts, recv_displs;  // All-to-Allv, in bytes
    int count = 0;                                                        // the others: elements (or bytes)
  };
  struct PreparedBurst {
    OpBurst burst;
    std::vector<PreparedOp> ops;
  };
  const PreparedBurst& prepared(BurstId burst) const;
  // Runs one op and waits for it (bounded); `verifying`: the correctness pass, named on a timeout.
  void run_op(const PreparedBurst& burst, std::size_t op_index, bool verifying);
  void run_collective(const PreparedBurst& burst, std::size_t op_index, bool verifying);
  void stall(const PreparedBurst& burst, std::size_t op_index);
  void run_epilogue(const CollectiveOp& op);  // the residual add + RMSNorm after the sum, a separate step
  std::byte* input(const CollectiveOp& op);   // where the op's input lies (in place or not)
  std::byte* result(const CollectiveOp& op);  // where its result lands

  const RankContext& context_;
  TransportOptions options_;
  Bf16SumOp bf16_sum_;
  std::vector<std::byte> send_, recv_, rows_;
  std::vector<std::byte> residual_, norm_out_, weight_;  // the AllReduce epilogue's (add_rmsnorm.hpp)
  std::vector<PreparedBurst> bursts_;
  std::vector<double> marks_;
  std::unique_ptr<CallWatchdog> watchdog_;  // null without MPI_THREAD_MULTIPLE: polled non-blocking ops
};

}  // namespace k25
