// The peer all-reduce backends on the host transport: oneshot (push), twoshot (reduce-scatter + all-gather)
// and oneshot-pull over an MPI-3 shared-memory window of the host's ranks, with the same steps, flags and
// barriers as the GPU kernels (kernels/peer_allreduce.cu), so that selection, interleaving, the exact check,
// the reports, compare, predict and the plots run without a GPU. Each flag is an epoch counter a peer stores
// (release) into this rank's segment and this rank loads (acquire); a barrier not met within the watchdog's
// bound throws BackendHang naming the ranks that did not arrive. A waiting rank spins on its core, or yields
// it where the host runs more ranks than cores.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/rank_context.hpp"
#include "transport/peer_allreduce.hpp"
#include "transport/shared_window.hpp"
#include "transport/transport.hpp"

namespace k25 {

class HostPeerAllreduce final : public Transport {
 public:
  // Collective over context.node() (the window is allocated in allocate()). `base` is the run's host
  // transport (its clock, its trial start); every rank must be on one host (the caller checks).
  HostPeerAllreduce(Transport& base, const PeerAllreduceOptions& options, const RankContext& context);

  std::string name() const override { return to_string(options_.algorithm); }
  std::string clock_description() const override { return base_.clock_description(); }
  bool completes_on_launch() const override { return true; }
  void begin_trial() override { base_.begin_trial(); }

  // Collective: the shared window, for the largest op of `sizes` (at most options.max_op_bytes).
  void allocate(const BufferSizes& sizes) override;
  // Throws BackendRefused for an op it cannot run (peer_op_refusal).
  [[nodiscard]] BurstId prepare(const OpBurst& burst) override;
  void launch(BurstId burst, std::size_t op_index) override;
  void launch_gap(BurstId burst, std::size_t op_index) override;
  [[nodiscard]] int mark() override { return base_.mark(); }
  void synchronize() override {}
  [[nodiscard]] double elapsed_us(int from_slot, int to_slot) override {
    return base_.elapsed_us(from_slot, to_slot);
  }
  void reset_marks() override { base_.reset_marks(); }
  [[nodiscard]] std::uint64_t verify(BurstId burst, std::size_t op_index) override;
  [[nodiscard]] std::uint64_t verify_burst(BurstId burst) override;

 private:
  std::byte* flag_word(int owner, int barrier, int from) const;
  std::byte* slot(int owner, int index) const;
  std::byte* gather(int owner) const;
  void signal(int barrier, std::uint32_t epoch);
  // Waits until every rank stored `epoch` into this rank's flags of `barrier`; BackendHang after the timeout.
  void wait(int barrier, std::uint32_t epoch, const OpBurst& burst, std::size_t op_index);
  void run(const OpBurst& burst, std::size_t op_index);
  void oneshot(const CollectiveOp& op, std::uint32_t epoch, const OpBurst& burst, std::size_t op_index);
  void twoshot(const CollectiveOp& op, std::uint32_t epoch, const OpBurst& burst, std::size_t op_index);
  void oneshot_pull(const CollectiveOp& op, std::uint32_t epoch, const OpBurst& burst, std::size_t op_index);
  // out[first, first + count) = the sum of `sources`' elements [source_first, ...), this rank's left out
  // under --inject-wrong; with the epilogue (rows of the op), its residual add and RMSNorm on those rows.
  void reduce_into(const CollectiveOp& op, const std::vector<const std::byte*>& sources, int own_source,
                   std::size_t source_first, std::size_t first, std::size_t count, std::byte* out,
                   std::byte* norm_out);
  std::byte* input();
  std::byte* result();
  [[noreturn]] void stall(const OpBurst& burst, std::size_t op_index);

  Transport& base_;
  PeerAllreduceOptions options_;
  const RankContext& context_;
  int rank_ = 0, ranks_ = 1;
  PeerBufferLayout layout_;
  SharedWindow window_;
  std::vector<std::byte> send_, recv_, residual_, norm_out_, weight_;
  std::vector<OpBurst> bursts_;
  std::uint32_t epoch_ = 0;
  bool yield_when_idle_ = false;  // more ranks on this host than cores: a waiting rank yields its core
};

}  // namespace k25
