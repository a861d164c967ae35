// The transport interface: runs bursts of collective ops (plan/collective_op.hpp) on this rank and times them
// with its own clock. A transport knows nothing of models; the measure loop drives it. Implementations: mpi
// (host memory), nccl (GPU).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include <vector>

#include "plan/collective_op.hpp"

namespace k25 {

// The largest buffers any op of the run needs on this rank, in bytes; allocated once per run.
struct BufferSizes {
  std::size_t send_bytes = 0;
  std::size_t recv_bytes = 0;
  std::size_t rows_bytes = 0;          // source rows of a RowGather, result rows of a SegmentSum
  std::size_t epilogue_bytes = 0;      // the residual and the normed output of an AllReduce's epilogue
  std::size_t epilogue_row_bytes = 0;  // its weight row
  bool operator==(const BufferSizes&) const = default;
};
// The sizes every op of `bursts` fits in, among `ranks` ranks.
BufferSizes largest_buffers(const std::vector<OpBurst>& bursts, int ranks);

// A burst the transport prepared, by the index prepare() returned.
using BurstId = std::size_t;

// A burst captured for replay (CUDA graph). Opaque to the measure loop.
class CapturedBurst {
 public:
  virtual ~CapturedBurst() = default;
};

class Transport {
 public:
  virtual ~Transport() = default;

  virtual std::string name() const = 0;               // "mpi" or "nccl"
  virtual std::string clock_description() const = 0;  // what the timestamps are, for the report
  virtual bool supports_graph() const { return false; }
  // True where launch() returns only once the op is complete (host transport): the host time to launch a
  // burst is then the burst itself, not a separate cost.
  virtual bool completes_on_launch() const = 0;
  virtual int device() const { return -1; }  // the CUDA device this rank drives; -1 for none

  // Called at the start of every trial, right after the trial's barrier and before any timestamp of it.
  virtual void begin_trial() {}

  // Once per run, before any op: allocate buffers of the given sizes.
  virtual void allocate(const BufferSizes& sizes) = 0;
  // Once per burst, outside any timed region: checks its ops against the buffers and precomputes their
  // arguments (displacements, index maps on the device). The burst stays prepared for the transport's life.
  [[nodiscard]] virtual BurstId prepare(const OpBurst& burst) = 0;
  // Issues op `op_index` of a prepared burst. The host transport completes it before returning; the nccl
  // transport enqueues it on its stream.
  virtual void launch(BurstId burst, std::size_t op_index) = 0;
  // Decode mode: the compute gap before op `op_index` (its busy_before_us): the nccl transport enqueues a GPU
  // busy kernel of that length on its stream, the host transport busy-waits. Nothing where the op has none.
  virtual void launch_gap(BurstId burst, std::size_t op_index) = 0;

  // Timestamps in the op stream: mark() records one at the current position and returns its slot.
  // Slots are valid until reset_marks(); elapsed_us() may be called only after synchronize().
  [[nodiscard]] virtual int mark() = 0;
  virtual void synchronize() = 0;  // waits for everything launched; the watchdog bounds the wait
  [[nodiscard]] virtual double elapsed_us(int from_slot, int to_slot) = 0;
  virtual void reset_marks() = 0;

  // Device-only timing (max_held_launches() > 0 only): hold_stream() makes the stream wait (a blocking
  // kernel) until release_stream(), so that a burst enqueued in between runs back to back on the device
  // whatever the host's launch cost, as nvbench does. At most max_held_launches() kernel launches may be
  // enqueued behind a hold (beyond the GPU's launch queue the host would block on a stream that waits for
  // it).
  virtual std::size_t max_held_launches() const { return 0; }
  virtual void hold_stream();
  virtual void release_stream();

  // Graph mode (supports_graph() only): capture every op of the burst once, then replay the capture.
  [[nodiscard]] virtual std::unique_ptr<CapturedBurst> capture(BurstId burst);
  virtual void replay(CapturedBurst& burst);

  // Correctness pass, outside the timed region: fills the inputs of op `op_index` with exactly predictable
  // data (small rank-dependent integers), runs it, and returns how many output elements on this rank are
  // wrong.
  [[nodiscard]] virtual std::uint64_t verify(BurstId burst, std::size_t op_index) = 0;
  // The AllReduce burst's check (every op of an AllReduce burst, run as the engine runs them: consecutive,
  // over the same buffers): op k's input is check_pattern.hpp's data shifted by k, and each op's result (with
  // the epilogue: its residual output exactly, its normed output within add_rmsnorm.hpp's bound) is checked
  // before the next op overwrites it, outside any timed region. Returns the wrong elements of all ops.
  [[nodiscard]] virtual std::uint64_t verify_burst(BurstId burst);

  // The transport a wrapper (DelayedArrival) wraps, this one where none: what a peer all-reduce backend
  // borrows its stream, clock and buffers from.
  virtual Transport& innermost() { return *this; }

  // The report's note on what this transport's figures mean (e.g. one-rank NCCL measures launch cost).
  virtual std::string caveat(int ranks) const {
    (void)ranks;
    return {};
  }
};

}  // namespace k25
