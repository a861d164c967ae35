// The nccl transport: one GPU per rank, one stream, device buffers allocated once, AllReduce, AllGather and
// ReduceScatter, All-to-All(v) as grouped ncclSend/ncclRecv, timed with cudaEvents; eager launches or a
// captured CUDA graph.
// Every wait is bounded: the stream by polling against the timeout, each blocking NCCL call by the rank's
// watchdog. On an error or timeout the live CUDA graphs are destroyed, the communicator aborted and
// RuntimeFault thrown.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <mpi.h>

#include "common/rank_context.hpp"
#include "transport/nccl/cuda_resources.hpp"
#include "transport/nccl/nccl_communicator.hpp"
#include "transport/nccl/nccl_registration.hpp"
#include "transport/nccl/stream_wait.hpp"
#include "transport/peer_layout.hpp"
#include "transport/transport.hpp"
#include "transport/transport_options.hpp"

namespace k25::nccl {

// The CUDA graph of one captured burst and its executable instance. Owned by the captured burst; the
// transport keeps a weak reference, so that it can destroy every live graph before the communicator they hold
// goes.
struct CapturedGraph {
  CudaGraph graph;
  CudaGraphExec exec;
  void destroy() noexcept {
    exec.reset();
    graph.reset();
  }
};

class NcclTransport final : public Transport {
 public:
  // Collective over context.world(): drives `device` (from choose_local_device), creates the stream and the
  // blocking communicator. With options.emulate_ranks, each rank first presents itself to NCCL as a host of
  // its own (NCCL_HOSTID), so that several ranks can share one GPU over NCCL's socket transport.
  NcclTransport(const TransportOptions& options, const RankContext& context, int device);
  ~NcclTransport() override;
  NcclTransport(const NcclTransport&) = delete;
  NcclTransport& operator=(const NcclTransport&) = delete;

  std::string name() const override { return "nccl"; }
  std::string clock_description() const override;
  bool supports_graph() const override { return true; }
  bool completes_on_launch() const override { return false; }
  int device() const override { return device_; }

  // Grows the buffers to `sizes` (and the largest of earlier calls). With --nccl-register local or symmetric,
  // send and receive buffers come from ncclMemAlloc and are registered; symmetric windows are collective and
  // of one size on every rank, so allocate() is then collective over the world and takes the largest size
  // any rank asks for.
  void allocate(const BufferSizes& sizes) override;
  [[nodiscard]] BurstId prepare(const OpBurst& burst) override;
  void launch(BurstId burst, std::size_t op_index) override;
  void launch_gap(BurstId burst, std::size_t op_index) override;  // a GPU busy kernel on the stream

  [[nodiscard]] int mark() override;
  void synchronize() override;
  [[nodiscard]] double elapsed_us(int from_slot, int to_slot) override;
  void reset_marks() override;

  // The launches the app may count behind a hold (one per collective and one per kernel of k25comm's). The
  // GPU's launch queue holds about a thousand pending entries; three quarters of that, 768, are used. NCCL
  // adds up to three entries of its own to each collective it plans (enqueue.cc, ncclLaunchPrepare: the user
  // stream waits on NCCL's device stream and, while a CUDA graph holds the communicator, on its host stream;
  // NCCL's device stream then waits on an event recorded after the kernel), so each counted launch may take
  // four entries: 768 / 4.
  std::size_t max_held_launches() const override { return kHeldStreamEntries / kEntriesPerLaunch; }
  static constexpr std::size_t kHeldStreamEntries = 768, kEntriesPerLaunch = 4;
  void hold_stream() override;
  void release_stream() override;

  [[nodiscard]] std::unique_ptr<CapturedBurst> capture(BurstId burst) override;
  void replay(CapturedBurst& burst) override;

  [[nodiscard]] std::uint64_t verify(BurstId burst, std::size_t op_index) override;
  // The AllReduce burst's check: each op's fill, the op (with its epilogue) and its count, enqueued one after
  // the other on the stream, then one bounded wait.
  [[nodiscard]] std::uint64_t verify_burst(BurstId burst) override;
  std::string caveat(int ranks) const override;

  // What a peer all-reduce backend on this transport borrows (transport/nccl/peer_allreduce_transport.hpp):
  // the op stream, the communicator and its watchdog, whether the ranks are emulated.
  cudaStream_t stream() const { return stream_.get(); }
  ncclComm_t comm() const { return comm_.get(); }
  CallWatchdog& watchdog() { return comm_.watchdog(); }
  bool emulated() const { return emulated_; }

 private:
  struct PreparedOp {
    PeerLayout layout;               // All-to-Allv
    std::size_t rows_offset = 0;     // RowGather: int32 index of its rows in PreparedBurst::maps
    std::size_t offsets_offset = 0;  // SegmentSum: int32 index of its CSR offsets in PreparedBurst::maps
    std::size_t index_offset = 0;    // SegmentSum: int32 index of its CSR copy index in PreparedBurst::maps
  };
  struct PreparedBurst {
    OpBurst burst;
    std::vector<PreparedOp> ops;
    DeviceBuffer maps;  // int32 index maps of every RowGather and SegmentSum
  };
  // What the stream is doing, for the watchdog's message.
  struct Launched {
    BurstId burst;
    std::size_t op;
  };

  // The first failed NCCL call of a group of calls, raised only once the watchdog is disarmed.
  struct NcclFailure {
    ncclResult_t rc = ncclSuccess;
    const char* call = nullptr;
    const char* file = nullptr;
    int line = 0;
  };
  const PreparedBurst& prepared(BurstId burst) const;
  // with_local_steps: the MoE pack/unpack around the op (not in the correctness pass); with_stall: an
  // injected hang before it (not in the eager pass ahead of a capture).
  void enqueue_op(const PreparedBurst& burst, std::size_t op_index, bool with_local_steps, bool with_stall);
  [[nodiscard]] NcclFailure enqueue_collective(const CollectiveOp& op, const PreparedOp& prepared);
  void enqueue_stall(const PreparedBurst& burst, std::size_t op_index);
  void enqueue_epilogue(const CollectiveOp& op);  // the residual add + RMSNorm kernel after the AllReduce
  void* input(const CollectiveOp& op) const;      // where the op's input lies (in place or not)
  void* result(const CollectiveOp& op) const;     // where its result lands
  // Grows `buffer` to `bytes` where it is smaller: deregisters it, allocates anew, registers the new one.
  void grow_registered(DeviceBuffer& buffer, NcclRegistration& registration, std::size_t bytes);
  [[noreturn]] void fail_nccl(const NcclFailure& failure, const std::string& activity);
  void wait_stream(const char* what);
  [[noreturn]] void fault(const WaitOutcome& outcome, const std::string& activity, const char* file,
                          int line);
  std::string describe_pending() const;
  void poison() noexcept;
  void throw_if_poisoned() const;
  void end_capture() noexcept;     // a capture in progress, ended and its partial graph destroyed
  void destroy_graphs() noexcept;  // every graph captured, before the communicator is aborted or destroyed

  bool in_place_ = false;
  bool emulated_ = false;
  NcclRegister register_mode_ = NcclRegister::none;
  MPI_Comm world_ = MPI_COMM_NULL;  // the run's communicator, for the symmetric windows' common size
  double timeout_s_ = 60.0;
  int rank_ = 0, ranks_ = 1;
  bool stalled_ = false;     // an op marked stall_before was enqueued (test only)
  std::string stall_words_;  // that op, in words
  int device_ = -1;
  // Set once the transport has faulted: handles tied to it are then leaked, not freed, because freeing could
  // block on a GPU that no longer makes progress or call into an aborted communicator.
  bool poisoned_ = false;

  CudaStream stream_;
  NcclCommunicator comm_;
  DeviceBuffer send_, recv_, rows_;
  DeviceBuffer residual_, norm_out_, weight_, epilogue_reference_;  // the AllReduce epilogue's
  NcclRegistration send_registration_, recv_registration_;          // --nccl-register local or symmetric
  DeviceBuffer wrong_count_;                                        // one unsigned long long
  PinnedHostBuffer wrong_host_;                                     // its copy on the host
  PinnedHostBuffer stall_flag_;  // one int: 0 holds an injected stall, 1 releases it
  PinnedHostBuffer hold_flag_;   // one int: 0 holds the stream for device-only timing, 1 releases it
  BufferSizes sizes_;

  std::vector<PreparedBurst> bursts_;                 // by BurstId
  std::vector<std::weak_ptr<CapturedGraph>> graphs_;  // every graph captured, alive or not

  std::vector<CudaEvent> events_;  // mark() slots; grown in prepare(), reused after reset_marks()
  int next_event_ = 0;
  std::vector<Launched> launched_;                  // ops enqueued since the last completed synchronize()
  std::vector<std::pair<int, std::size_t>> marks_;  // (slot, launched_.size() when marked) since then
  std::string activity_;                            // set by replay/capture/verify; empty for eager launches
};

}  // namespace k25::nccl
