// The peer all-reduce backends on host memory: pushes and pulls through an MPI shared window, epoch flags,
// the two barriers of each op, the sum and the fused epilogue, and the burst check.
#include "transport/host_peer_allreduce.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "transport/add_rmsnorm.hpp"
#include "transport/host_burst_check.hpp"
#include "transport/host_busy_wait.hpp"
#include "transport/host_elements.hpp"

namespace k25 {
namespace {

std::atomic_ref<std::uint32_t> flag_at(std::byte* word) {
  return std::atomic_ref<std::uint32_t>(*reinterpret_cast<std::uint32_t*>(word));
}

// A short pause in a spin loop (the CPU's hint that this is one), nothing where there is none.
inline void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Epochs wrap after 2^32 ops: a flag has reached `epoch` when it is not behind it.
bool reached(std::uint32_t flag, std::uint32_t epoch) {
  return static_cast<std::int32_t>(flag - epoch) >= 0;
}

// What each barrier of an algorithm waits for, for the message when it is not met.
const char* barrier_name(AllreduceBackend algorithm, int barrier) {
  if (algorithm == AllreduceBackend::twoshot)
    return barrier == 0 ? "reduce-scatter barrier (every rank's part in place)"
                        : "all-gather barrier (every reduced part in place)";
  return barrier == 0 ? "start barrier (every rank's input in place)"
                      : "end barrier (every rank done reading before the next op)";
}

}  // namespace

HostPeerAllreduce::HostPeerAllreduce(Transport& base, const PeerAllreduceOptions& options,
                                     const RankContext& context)
    : base_(base),
      options_(options),
      context_(context),
      rank_(context.rank()),
      ranks_(context.size()),
      yield_when_idle_(static_cast<unsigned>(context.local_size()) > std::thread::hardware_concurrency()) {}

void HostPeerAllreduce::allocate(const BufferSizes& sizes) {
  const std::size_t op_bytes = std::min(sizes.send_bytes, options_.max_op_bytes);
  const std::size_t epilogue_bytes = std::min(sizes.epilogue_bytes, options_.max_op_bytes);
  layout_ = peer_buffer_layout(options_.algorithm, ranks_, op_bytes,
                               epilogue_bytes > 0 ? sizes.epilogue_row_bytes : 0, 1);
  window_ = SharedWindow(context_.node(), layout_.total_bytes);
  send_.assign(op_bytes, std::byte{0});
  recv_.assign(op_bytes, std::byte{0});
  residual_.assign(epilogue_bytes, std::byte{0});
  norm_out_.assign(epilogue_bytes, std::byte{0});
  weight_.assign(std::min(sizes.epilogue_row_bytes, options_.max_op_bytes), std::byte{0});
}

BurstId HostPeerAllreduce::prepare(const OpBurst& burst) {
  for (std::size_t i = 0; i < burst.ops.size(); ++i)
    if (const auto refusal = peer_op_refusal(options_, burst, i, false)) throw BackendRefused(*refusal);
  bursts_.push_back(burst);
  return bursts_.size() - 1;
}

std::byte* HostPeerAllreduce::flag_word(int owner, int barrier, int from) const {
  return window_.segment(owner) + layout_.flag_offset(0, barrier, from);
}

std::byte* HostPeerAllreduce::slot(int owner, int index) const {
  return window_.segment(owner) + layout_.slot_offset(index);
}

std::byte* HostPeerAllreduce::gather(int owner) const {
  return window_.segment(owner) + layout_.gather_offset;
}

std::byte* HostPeerAllreduce::input() {
  return send_.data();
}

std::byte* HostPeerAllreduce::result() {
  return options_.in_place ? send_.data() : recv_.data();
}

void HostPeerAllreduce::signal(int barrier, std::uint32_t epoch) {
  for (int peer = 0; peer < ranks_; ++peer)
    flag_at(flag_word(peer, barrier, rank_)).store(epoch, std::memory_order_release);
}

void HostPeerAllreduce::wait(int barrier, std::uint32_t epoch, const OpBurst& burst, std::size_t op_index) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(options_.timeout_s);
  unsigned missing = 0;
  for (unsigned polls = 0;; ++polls) {
    missing = 0;
    for (int peer = 0; peer < ranks_; ++peer)
      if (!reached(flag_at(flag_word(rank_, barrier, peer)).load(std::memory_order_acquire), epoch))
        missing |= 1u << peer;
    if (missing == 0) return;
    // Ranks that share a core (oversubscribed) let the late one run, as Open MPI yields when idle there; with
    // a core each, the rank keeps its core (a yield hands it to any other process and costs a time slice).
    if (yield_when_idle_ && polls >= 64)
      std::this_thread::yield();
    else
      spin_pause();
    if ((polls & 255u) == 255u && Clock::now() > deadline) break;
  }
  const CollectiveOp& op = burst.ops[op_index];
  throw BackendHang(fmt::format(
      "{} AllReduce backend: {} ({} bytes): {} did not arrive at its {} within the {:g} s timeout (rank {} of {} waited); the backend hangs here: leave it out of --allreduce-backends to measure the others",
      name(), op_words(burst, op_index), op.count * dtype_bytes(op.dtype), rank_list(missing),
      barrier_name(options_.algorithm, barrier), options_.timeout_s, rank_, ranks_));
}

void HostPeerAllreduce::reduce_into(const CollectiveOp& op, const std::vector<const std::byte*>& sources,
                                    int own_source, std::size_t source_first, std::size_t first,
                                    std::size_t count, std::byte* out, std::byte* norm_out) {
  const Dtype dtype = op.dtype;
  for (std::size_t i = 0; i < count; ++i) {
    float sum = 0;
    for (std::size_t q = 0; q < sources.size(); ++q)
      if (!(options_.leave_out_own_input && static_cast<int>(q) == own_source))
        sum += load_element(sources[q], source_first + i, dtype);
    store_element(out, first + i, dtype, sum);
  }
  // Fused: the rows just reduced get their residual add and RMSNorm before anything else touches them.
  if (op.epilogue_rows > 0) {
    const std::size_t row = op.epilogue_row_elements();
    add_rmsnorm_rows(out, residual_.data(), weight_.data(), norm_out, first / row, count / row, row, dtype);
  }
}

// Push: every rank's input into slot `rank` of every rank; start barrier; each reduces its own slots; end
// barrier, so that no rank's next push lands in a slot a peer is still reading.
void HostPeerAllreduce::oneshot(const CollectiveOp& op, std::uint32_t epoch, const OpBurst& burst,
                                std::size_t op_index) {
  const std::size_t bytes = op.count * dtype_bytes(op.dtype);
  for (int peer = 0; peer < ranks_; ++peer) std::memcpy(slot(peer, rank_), input(), bytes);
  signal(0, epoch);
  wait(0, epoch, burst, op_index);
  std::vector<const std::byte*> sources;
  for (int q = 0; q < ranks_; ++q) sources.push_back(slot(rank_, q));
  reduce_into(op, sources, rank_, 0, 0, op.count, result(), norm_out_.data());
  signal(1, epoch);
  wait(1, epoch, burst, op_index);
}

// Reduce-scatter: each rank's part c of its input into slot `rank` of rank c; barrier; rank c reduces its
// part (and, with the epilogue, normalizes its rows) and pushes it into every rank's gather area; barrier;
// each copies the gathered whole out. No end barrier: a rank's next push into a slot comes after the
// all-gather barrier, which every rank passes only once it reduced its slots, and its next gather push after
// the next reduce-scatter barrier, which every rank passes only once it copied this op's gather area out.
void HostPeerAllreduce::twoshot(const CollectiveOp& op, std::uint32_t epoch, const OpBurst& burst,
                                std::size_t op_index) {
  const std::size_t element = dtype_bytes(op.dtype);
  for (int part = 0; part < ranks_; ++part) {
    const PeerChunk chunk = twoshot_chunk(part, ranks_, op.count, op.dtype, op.epilogue_rows);
    std::memcpy(slot(part, rank_), input() + chunk.first * element, chunk.count * element);
  }
  signal(0, epoch);
  wait(0, epoch, burst, op_index);
  const PeerChunk mine = twoshot_chunk(rank_, ranks_, op.count, op.dtype, op.epilogue_rows);
  std::vector<const std::byte*> sources;
  for (int q = 0; q < ranks_; ++q) sources.push_back(slot(rank_, q));
  std::byte* own_gather = gather(rank_);
  std::byte* own_norm = own_gather + layout_.gather_bytes;
  reduce_into(op, sources, rank_, 0, mine.first, mine.count, own_gather, own_norm);
  const std::size_t at = mine.first * element, bytes = mine.count * element;
  for (int peer = 0; peer < ranks_; ++peer) {
    if (peer == rank_) continue;
    std::memcpy(gather(peer) + at, own_gather + at, bytes);
    if (op.epilogue_rows > 0) std::memcpy(gather(peer) + layout_.gather_bytes + at, own_norm + at, bytes);
  }
  signal(1, epoch);
  wait(1, epoch, burst, op_index);
  std::memcpy(result(), own_gather, op.count * element);
  if (op.epilogue_rows > 0) std::memcpy(norm_out_.data(), own_norm, op.count * element);
}

// Pull: each rank's input into its own slot; start barrier; each reads every rank's slot and reduces; end
// barrier, so that no rank overwrites its slot while a peer still reads it.
void HostPeerAllreduce::oneshot_pull(const CollectiveOp& op, std::uint32_t epoch, const OpBurst& burst,
                                     std::size_t op_index) {
  std::memcpy(slot(rank_, 0), input(), op.count * dtype_bytes(op.dtype));
  signal(0, epoch);
  wait(0, epoch, burst, op_index);
  std::vector<const std::byte*> sources;
  for (int q = 0; q < ranks_; ++q) sources.push_back(slot(q, 0));
  reduce_into(op, sources, rank_, 0, 0, op.count, result(), norm_out_.data());
  signal(1, epoch);
  wait(1, epoch, burst, op_index);
}

// Test only (--inject-hang ...:BACKEND): this rank never arrives. Its peers' barrier waits end the run;
// should they not (one rank), this throws after the timeout and more.
void HostPeerAllreduce::stall(const OpBurst& burst, std::size_t op_index) {
  const auto until =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(options_.timeout_s + 120.0);
  while (std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  throw BackendHang(
      fmt::format("{} AllReduce backend: {} did not finish (a hang was injected there by --inject-hang)",
                  name(), op_words(burst, op_index)));
}

void HostPeerAllreduce::run(const OpBurst& burst, std::size_t op_index) {
  const CollectiveOp& op = burst.ops[op_index];
  if (op.stall_before) stall(burst, op_index);
  const std::uint32_t epoch = ++epoch_;
  switch (options_.algorithm) {
    case AllreduceBackend::twoshot:
      twoshot(op, epoch, burst, op_index);
      return;
    case AllreduceBackend::oneshot_pull:
      oneshot_pull(op, epoch, burst, op_index);
      return;
    default:
      oneshot(op, epoch, burst, op_index);
      return;
  }
}

void HostPeerAllreduce::launch(BurstId burst, std::size_t op_index) {
  run(bursts_.at(burst), op_index);
}

void HostPeerAllreduce::launch_gap(BurstId burst, std::size_t op_index) {
  host_busy_wait_us(bursts_.at(burst).ops.at(op_index).busy_before_us);
}

std::uint64_t HostPeerAllreduce::verify(BurstId, std::size_t) {
  throw UsageError(name() + ": its correctness pass is the burst check (verify_burst)");
}

std::uint64_t HostPeerAllreduce::verify_burst(BurstId id) {
  const HostAllreduceBuffers buffers{
      input(),         result(),         options_.in_place ? nullptr : recv_.data(),
      recv_.size(),    residual_.data(), weight_.data(),
      norm_out_.data()};
  const OpBurst& burst = bursts_.at(id);
  return check_allreduce_burst(burst, rank_, ranks_, buffers, [&](std::size_t k) { run(burst, k); });
}

}  // namespace k25
