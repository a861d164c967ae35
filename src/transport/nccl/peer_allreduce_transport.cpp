// The GPU peer all-reduce backends: the peer buffers' mapping (NCCL window or CUDA IPC), the kernels'
// launches on the nccl transport's stream, their bounded waits, graph capture and the burst check.
#include "transport/nccl/peer_allreduce_transport.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/first_problem.hpp"
#include "k25_kernels.h"
#include "transport/nccl/cuda_check.hpp"
#include "transport/nccl/cuda_resources.hpp"
#include "transport/nccl/gpu_burst_check.hpp"
#include "transport/nccl/nccl_registration.hpp"
#include "transport/nccl/nccl_transport.hpp"
#include "transport/nccl/stream_wait.hpp"
#include "transport/nccl/window_peer_pointers.hpp"
#include "transport/op_wait_point.hpp"

namespace k25::nccl {
namespace {

constexpr int kStatusWords = 10;           // kernels/k25_kernels.h: gave up, 8 ranks missing, the op's tag
constexpr double kHostWaitMarginS = 10.0;  // the host waits this much longer than the kernels' own bound

std::string peer_bus_id(int device) {
  char id[32] = {};
  if (cudaDeviceGetPCIBusId(id, sizeof id, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return "unknown bus id";
  }
  return id;
}

// Every rank's bus id, index = world rank.
std::vector<std::string> gather_bus_ids(const RankContext& context, int device) {
  std::array<char, 32> mine{};
  const std::string id = peer_bus_id(device);
  std::memcpy(mine.data(), id.data(), std::min(id.size(), mine.size() - 1));
  std::vector<char> all(mine.size() * static_cast<std::size_t>(context.size()));
  K25_MPI_CHECK(MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, all.data(),
                              static_cast<int>(mine.size()), MPI_CHAR, context.world()));
  std::vector<std::string> ids;
  for (int rank = 0; rank < context.size(); ++rank) ids.emplace_back(all.data() + rank * mine.size());
  return ids;
}

// Every rank's exposed buffer as this process maps it, and who owns the mapping.
class PeerMapping {
 public:
  PeerMapping() = default;
  PeerMapping(const PeerMapping&) = delete;
  PeerMapping& operator=(const PeerMapping&) = delete;
  PeerMapping(PeerMapping&&) = default;
  PeerMapping& operator=(PeerMapping&&) = default;
  ~PeerMapping() {
    // Deregistering a window is collective: while an exception unwinds the peers may be elsewhere.
    if (std::uncaught_exceptions() > 0) registration.release();
    for (void* opened : ipc_opened) (void)cudaIpcCloseMemHandle(opened);
  }

  DeviceBuffer own;
  NcclRegistration registration;        // the window path
  std::vector<void*> ipc_opened;        // the IPC path: the peers' buffers opened here
  std::vector<std::uint8_t*> pointers;  // index = rank
  std::string how;                      // for the run's notes
};

#if K25_NCCL_HAS_DEVICE_API
// Whether every rank can take NCCL's window path: NCCL 2.28 or later at run time, cuMem on, not emulated
// ranks (NCCL sees each as its own host), and one LSA team of all the ranks. Agreed by every rank.
bool window_path_possible(const NcclTransport& nccl, const RankContext& context) {
  int version = 0;
  const char* cumem = std::getenv("NCCL_CUMEM_ENABLE");
  int possible = ncclGetVersion(&version) == ncclSuccess && version >= NCCL_VERSION(2, 28, 0) &&
                 !nccl.emulated() && !(cumem != nullptr && std::string(cumem) == "0") &&
                 lsa_team_size(nccl.comm()) == context.size();
  K25_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &possible, 1, MPI_INT, MPI_MIN, context.world()));
  return possible != 0;
}

PeerMapping map_through_window(NcclTransport& nccl, std::size_t bytes, const RankContext& context,
                               double timeout_s, std::string& problem) {
  PeerMapping mapping;
  // ncclMemAlloc is each rank's own: a rank that cannot allocate says so before the collective registration,
  // so that no rank waits in it for one that never comes (the backend then does not run, saying why).
  std::string allocation;
  try {
    mapping.own = allocate_nccl_memory(bytes);
  } catch (const Error& e) {
    allocation = fmt::format("rank {}: {}", context.rank(), e.message());
  }
  problem = first_problem(context.world(), allocation);
  if (!problem.empty()) return mapping;
  ncclWindow_t window = nullptr;
  ncclResult_t registered = ncclSuccess;
  {
    const OpWaitPoint point("ncclCommWindowRegister of a peer all-reduce backend's buffer");
    const ArmedWait armed(nccl.watchdog(), point);
    registered =
        ncclCommWindowRegister(nccl.comm(), mapping.own.get(), bytes, &window, NCCL_WIN_COLL_SYMMETRIC);
  }
  // A registration that failed on some ranks only (where it failed before its collective part, the watchdog
  // ends the wait in it): every rank stops here alike, with the first failed rank's words. The windows the
  // others registered are left to the communicator's end (their deregistration is collective).
  const std::string failed = first_problem(
      context.world(),
      registered == ncclSuccess
          ? std::string()
          : fmt::format("ncclCommWindowRegister of a peer all-reduce backend's buffer failed on rank {}: {}",
                        context.rank(), ncclGetErrorString(registered)));
  if (!failed.empty()) throw RuntimeFault(failed, "ncclCommWindowRegister", __FILE__, __LINE__);
  mapping.registration = NcclRegistration::window(nccl.comm(), window);
  PinnedHostBuffer pointers =
      PinnedHostBuffer::allocate(sizeof(void*) * static_cast<std::size_t>(context.size()));
  K25_CUDA_CHECK(
      enqueue_window_peer_pointers(window, context.size(), pointers.device<void*>(), nccl.stream()));
  if (!wait_for_stream(nccl.stream(), nccl.comm(), timeout_s).ok())
    throw RuntimeFault("the kernel reading NCCL's window pointers did not finish");
  for (int rank = 0; rank < context.size(); ++rank)
    mapping.pointers.push_back(static_cast<std::uint8_t*>(pointers.host<void*>()[rank]));
  mapping.how =
      "NCCL's symmetric window (ncclCommWindowRegister) and its device-API load/store pointers (ncclGetLsaPointer)";
  return mapping;
}
#endif

// CUDA IPC: every rank's handle over MPI, every peer's opened here. `problem` says which pair cannot map each
// other's memory (the peers' GPUs without P2P), empty where every one could.
PeerMapping map_through_ipc(int device, std::size_t bytes, const RankContext& context, std::string& problem) {
  PeerMapping mapping;
  mapping.own = DeviceBuffer::allocate(bytes);
  cudaIpcMemHandle_t handle{};
  K25_CUDA_CHECK(cudaIpcGetMemHandle(&handle, mapping.own.get()));
  std::vector<cudaIpcMemHandle_t> handles(static_cast<std::size_t>(context.size()));
  K25_MPI_CHECK(MPI_Allgather(&handle, sizeof handle, MPI_BYTE, handles.data(), sizeof handle, MPI_BYTE,
                              context.world()));
  const std::vector<std::string> bus_ids = gather_bus_ids(context, device);
  const std::string& mine = bus_ids[static_cast<std::size_t>(context.rank())];
  for (int rank = 0; rank < context.size(); ++rank) {
    if (rank == context.rank()) {
      mapping.pointers.push_back(mapping.own.get<std::uint8_t>());
      continue;
    }
    const std::string& theirs = bus_ids[static_cast<std::size_t>(rank)];
    const auto pair =
        fmt::format("rank {}'s GPU {} and rank {}'s GPU {}", context.rank(), mine, rank, theirs);
    int peer_device = -1, can_access = 1;
    if (theirs != mine && cudaDeviceGetByPCIBusId(&peer_device, theirs.c_str()) == cudaSuccess &&
        cudaDeviceCanAccessPeer(&can_access, device, peer_device) == cudaSuccess && can_access == 0) {
      problem = fmt::format("P2P is not possible between {} (cudaDeviceCanAccessPeer: no)", pair);
      mapping.pointers.push_back(nullptr);
      continue;
    }
    (void)cudaGetLastError();
    void* opened = nullptr;
    const cudaError_t rc = cudaIpcOpenMemHandle(&opened, handles[static_cast<std::size_t>(rank)],
                                                cudaIpcMemLazyEnablePeerAccess);
    if (rc != cudaSuccess) {
      (void)cudaGetLastError();
      if (problem.empty())
        problem = fmt::format(
            "{} cannot map each other's memory (cudaIpcOpenMemHandle: {}): P2P is not possible between them",
            pair, cudaGetErrorString(rc));
      mapping.pointers.push_back(nullptr);
      continue;
    }
    mapping.ipc_opened.push_back(opened);
    mapping.pointers.push_back(static_cast<std::uint8_t*>(opened));
  }
  mapping.how = "CUDA IPC handles exchanged over MPI (cudaIpcOpenMemHandle)";
  return mapping;
}

kernels::ElementType peer_element_type(Dtype dtype) {
  return dtype == Dtype::fp32 ? kernels::ElementType::fp32 : kernels::ElementType::bf16;
}

kernels::PeerAlgorithm kernel_algorithm(AllreduceBackend backend) {
  switch (backend) {
    case AllreduceBackend::twoshot:
      return kernels::PeerAlgorithm::twoshot;
    case AllreduceBackend::oneshot_pull:
      return kernels::PeerAlgorithm::oneshot_pull;
    default:
      return kernels::PeerAlgorithm::oneshot_push;
  }
}

std::size_t peer_buffer_rounded(std::size_t bytes) {
  return (std::max<std::size_t>(bytes, 1) + 255) / 256 * 256;
}

class PeerCapturedBurst final : public CapturedBurst {
 public:
  PeerCapturedBurst(CudaGraph graph, CudaGraphExec exec, BurstId burst)
      : graph_(std::move(graph)), exec_(std::move(exec)), burst_(burst) {}
  cudaGraphExec_t exec() const { return exec_.get(); }
  BurstId burst() const { return burst_; }

 private:
  CudaGraph graph_;
  CudaGraphExec exec_;
  BurstId burst_;
};

class NcclPeerAllreduce final : public Transport {
 public:
  NcclPeerAllreduce(Transport& base, NcclTransport& nccl, const PeerAllreduceOptions& options,
                    const RankContext& context, PeerBufferLayout layout, PeerMapping mapping)
      : base_(base),
        nccl_(nccl),
        options_(options),
        rank_(context.rank()),
        ranks_(context.size()),
        layout_(layout),
        mapping_(std::move(mapping)) {
    epochs_ = DeviceBuffer::allocate(sizeof(std::uint32_t) * kernels::kPeerBlocks);
    K25_CUDA_CHECK(cudaMemsetAsync(epochs_.get(), 0, epochs_.bytes(), nccl_.stream()));
    status_ = PinnedHostBuffer::allocate(sizeof(unsigned) * kStatusWords);
    std::memset(status_.host(), 0, sizeof(unsigned) * kStatusWords);
    status_on_device_ = status_.device<unsigned>();  // once: each launch passes it
    stall_flag_ = PinnedHostBuffer::allocate(sizeof(int));
    *stall_flag_.host<int>() = 1;
    wrong_count_ = DeviceBuffer::allocate(sizeof(unsigned long long));
    wrong_host_ = PinnedHostBuffer::allocate(sizeof(unsigned long long));
  }

  std::string name() const override { return to_string(options_.algorithm); }
  std::string clock_description() const override { return base_.clock_description(); }
  bool supports_graph() const override { return true; }
  bool completes_on_launch() const override { return false; }
  int device() const override { return base_.device(); }
  void begin_trial() override { base_.begin_trial(); }
  std::string caveat(int) const override { return name() + ": peer buffers mapped through " + mapping_.how; }

  void allocate(const BufferSizes& sizes) override {
    const std::size_t op = std::min(sizes.send_bytes, options_.max_op_bytes);
    const std::size_t epilogue = std::min(sizes.epilogue_bytes, options_.max_op_bytes);
    send_ = DeviceBuffer::allocate(peer_buffer_rounded(op));
    recv_ = DeviceBuffer::allocate(peer_buffer_rounded(op));
    if (epilogue > 0) {
      residual_ = DeviceBuffer::allocate(peer_buffer_rounded(epilogue));
      norm_out_ = DeviceBuffer::allocate(peer_buffer_rounded(epilogue));
      weight_ = DeviceBuffer::allocate(peer_buffer_rounded(sizes.epilogue_row_bytes));
      reference_ = DeviceBuffer::allocate(peer_buffer_rounded(12 * sizes.epilogue_row_bytes));
    }
    for (DeviceBuffer* buffer : {&send_, &recv_, &residual_, &norm_out_, &weight_})
      if (buffer->get()) K25_CUDA_CHECK(cudaMemsetAsync(buffer->get(), 0, buffer->bytes(), nccl_.stream()));
    wait("allocating the buffers");
  }

  [[nodiscard]] BurstId prepare(const OpBurst& burst) override {
    for (std::size_t i = 0; i < burst.ops.size(); ++i) {
      if (const auto refusal = peer_op_refusal(options_, burst, i, true)) throw BackendRefused(*refusal);
      const CollectiveOp& op = burst.ops[i];
      if (op.epilogue_rows > 0 &&
          (op.epilogue_row_elements() * dtype_bytes(op.dtype)) % kPeerVectorBytes != 0)
        throw BackendRefused(fmt::format(
            "{}: the fused epilogue's rows of {} elements are not a whole number of the kernels' 16-byte vectors",
            name(), op.epilogue_row_elements()));
    }
    bursts_.push_back(burst);
    return bursts_.size() - 1;
  }

  void launch(BurstId id, std::size_t op_index) override { enqueue(id, op_index, true); }

  void launch_gap(BurstId id, std::size_t op_index) override {
    const double gap_us = bursts_.at(id).ops.at(op_index).busy_before_us;
    if (gap_us > 0)
      K25_CUDA_CHECK(kernels::busy_for(static_cast<std::uint64_t>(gap_us * 1e3), nccl_.stream()));
  }

  [[nodiscard]] int mark() override { return base_.mark(); }
  void synchronize() override {
    wait(launched_words_.empty() ? "the burst" : launched_words_);
    base_.synchronize();
  }
  [[nodiscard]] double elapsed_us(int from_slot, int to_slot) override {
    return base_.elapsed_us(from_slot, to_slot);
  }
  void reset_marks() override { base_.reset_marks(); }
  std::size_t max_held_launches() const override { return base_.max_held_launches(); }
  void hold_stream() override { base_.hold_stream(); }
  void release_stream() override { base_.release_stream(); }

  [[nodiscard]] std::unique_ptr<CapturedBurst> capture(BurstId id) override {
    const OpBurst& burst = bursts_.at(id);
    for (std::size_t i = 0; i < burst.ops.size(); ++i) enqueue(id, i, false);  // first use outside a graph
    synchronize();
    K25_CUDA_CHECK(cudaStreamBeginCapture(nccl_.stream(), cudaStreamCaptureModeThreadLocal));
    for (std::size_t i = 0; i < burst.ops.size(); ++i) enqueue(id, i, true);
    cudaGraph_t captured = nullptr;
    K25_CUDA_CHECK(cudaStreamEndCapture(nccl_.stream(), &captured));
    CudaGraph graph(captured);
    CudaGraphExec exec = CudaGraphExec::instantiate(graph.get());
    K25_CUDA_CHECK(cudaGraphUpload(exec.get(), nccl_.stream()));
    wait("uploading the graph of " + burst.what);
    return std::make_unique<PeerCapturedBurst>(std::move(graph), std::move(exec), id);
  }

  void replay(CapturedBurst& burst) override {
    auto* captured = dynamic_cast<PeerCapturedBurst*>(&burst);
    if (captured == nullptr) throw RuntimeFault("replay() was given a burst another transport captured");
    last_burst_ = captured->burst();
    K25_CUDA_CHECK(cudaGraphLaunch(captured->exec(), nccl_.stream()));
  }

  [[nodiscard]] std::uint64_t verify(BurstId, std::size_t) override {
    throw UsageError(name() + ": its correctness pass is the burst check (verify_burst)");
  }

  // Op k: its input filled with the check data shifted by k, the kernel, its count; all on the stream, one
  // after the other, as in a timed burst.
  [[nodiscard]] std::uint64_t verify_burst(BurstId id) override {
    auto* wrong = wrong_count_.get<unsigned long long>();
    const GpuCheckBuffers buffers{send_.get(),
                                  result(),
                                  options_.in_place ? nullptr : recv_.get(),
                                  recv_.bytes(),
                                  residual_.get(),
                                  weight_.get(),
                                  norm_out_.get(),
                                  reference_.get<float>(),
                                  wrong};
    enqueue_burst_check(
        bursts_.at(id), buffers, rank_, ranks_, nccl_.stream(), [&](std::size_t k) { enqueue(id, k, true); },
        [&](const char* what) { wait(what); });
    K25_CUDA_CHECK(
        cudaMemcpyAsync(wrong_host_.host(), wrong, sizeof *wrong, cudaMemcpyDeviceToHost, nccl_.stream()));
    synchronize();
    return *wrong_host_.host<unsigned long long>();
  }

 private:
  void* result() const { return options_.in_place ? send_.get() : recv_.get(); }

  void enqueue(BurstId id, std::size_t op_index, bool with_stall) {
    const OpBurst& burst = bursts_.at(id);
    const CollectiveOp& op = burst.ops.at(op_index);
    launched_words_ = op_words(burst, op_index);
    last_burst_ = id;
    if (op.stall_before && with_stall) {
      // Test only (--inject-hang ...:BACKEND): this rank's stream waits on a flag nothing releases, bounded
      // on the GPU past the watchdog should the process die first; its peers' kernels give up on it.
      *stall_flag_.host<int>() = 0;
      K25_CUDA_CHECK(kernels::spin_until_released(
          stall_flag_.device<int>(), static_cast<std::uint64_t>((options_.timeout_s + 120.0) * 1e9),
          nccl_.stream()));
    }
    kernels::PeerAllreduceArgs args;
    args.algorithm = kernel_algorithm(options_.algorithm);
    args.type = peer_element_type(op.dtype);
    args.rank = rank_;
    args.ranks = ranks_;
    args.input = send_.get();
    args.output = result();
    args.count = op.count;
    for (int rank = 0; rank < ranks_; ++rank)
      args.buffers[rank] = mapping_.pointers[static_cast<std::size_t>(rank)];
    args.flags_offset = layout_.flags_offset;
    args.slots_offset = layout_.slots_offset;
    args.slot_bytes = layout_.slot_bytes;
    args.gather_offset = layout_.gather_offset;
    args.gather_bytes = layout_.gather_bytes;
    args.epochs = epochs_.get<std::uint32_t>();
    args.bound_ns = static_cast<std::uint64_t>(options_.timeout_s * 1e9);
    args.status = status_on_device_;
    args.op_tag = static_cast<unsigned>(op_index);
    args.leave_out_own_input = options_.leave_out_own_input;
    args.rows = op.epilogue_rows;
    args.residual = residual_.get();
    args.weight = weight_.get();
    args.norm_out = norm_out_.get();
    K25_CUDA_CHECK(kernels::peer_allreduce(args, nccl_.stream()));
  }

  // The bounded wait: the kernels give up after the timeout and say which ranks did not arrive; the host
  // waits a margin longer for the stream itself.
  void wait(const std::string& what) {
    const WaitOutcome outcome =
        wait_for_stream(nccl_.stream(), nccl_.comm(), options_.timeout_s + kHostWaitMarginS);
    const auto* status = status_.host<volatile unsigned>();
    if (outcome.ok() && status[0] == 0) return;
    unsigned missing = 0;
    for (int rank = 0; rank < ranks_ && rank < 8; ++rank)
      if (status[1 + rank] != 0) missing |= 1u << rank;
    std::string op_text = what;
    const unsigned op_index = status[9];  // the op a kernel gave up in, of the burst launched last
    if (status[0] != 0 && last_burst_ < bursts_.size() && op_index < bursts_[last_burst_].ops.size()) {
      const OpBurst& burst = bursts_[last_burst_];
      const CollectiveOp& op = burst.ops[op_index];
      op_text = fmt::format("{} ({} bytes)", op_words(burst, op_index), op.count * dtype_bytes(op.dtype));
    }
    if (!outcome.ok() && status[0] == 0)
      throw BackendHang(fmt::format(
          "{} AllReduce backend: {} did not finish within {:g} s on rank {} of {} ({}); leave it out of --allreduce-backends to measure the others",
          name(), op_text, options_.timeout_s + kHostWaitMarginS, rank_, ranks_, outcome.detail));
    throw BackendHang(fmt::format(
        "{} AllReduce backend: {}: {} did not arrive at its barrier within the {:g} s timeout (rank {} of {} waited); the backend hangs here: leave it out of --allreduce-backends to measure the others",
        name(), op_text, rank_list(missing), options_.timeout_s, rank_, ranks_));
  }

  Transport& base_;
  NcclTransport& nccl_;
  PeerAllreduceOptions options_;
  int rank_ = 0, ranks_ = 1;
  PeerBufferLayout layout_;
  PeerMapping mapping_;
  DeviceBuffer epochs_, send_, recv_, residual_, norm_out_, weight_, reference_, wrong_count_;
  PinnedHostBuffer status_, stall_flag_, wrong_host_;
  unsigned* status_on_device_ = nullptr;
  std::vector<OpBurst> bursts_;
  BurstId last_burst_ = 0;      // the burst launched or replayed last: the one a kernel that gave up was in
  std::string launched_words_;  // its last op, in words
};

}  // namespace

PeerBackendChoice make_peer_allreduce(Transport& transport, const PeerAllreduceOptions& options,
                                      const RankContext& context) {
  auto* nccl = dynamic_cast<NcclTransport*>(&transport.innermost());
  if (nccl == nullptr) return {nullptr, "the peer backends on GPUs need the nccl transport"};
  const std::size_t max_row = options.epilogue ? options.max_op_bytes : 0;
  const PeerBufferLayout layout = peer_buffer_layout(options.algorithm, context.size(), options.max_op_bytes,
                                                     max_row, kernels::kPeerBlocks);
  std::string problem;
  PeerMapping mapping;
  bool mapped = false;
#if K25_NCCL_HAS_DEVICE_API
  if (window_path_possible(*nccl, context)) {
    mapping = map_through_window(*nccl, layout.total_bytes, context, options.timeout_s, problem);
    if (!problem.empty()) return {nullptr, problem};
    mapped = true;
  }
#endif
  if (!mapped) mapping = map_through_ipc(nccl->device(), layout.total_bytes, context, problem);
  problem = first_problem(context.world(), problem);
  if (!problem.empty()) return {nullptr, problem};
  K25_CUDA_CHECK(cudaMemsetAsync(mapping.own.get(), 0, layout.total_bytes, nccl->stream()));
  if (!wait_for_stream(nccl->stream(), nccl->comm(), options.timeout_s).ok())
    throw RuntimeFault("zeroing a peer all-reduce backend's buffer did not finish");
  // No rank stores a flag into a buffer before its owner zeroed it.
  K25_MPI_CHECK(MPI_Barrier(context.world()));
  return {std::make_unique<NcclPeerAllreduce>(transport, *nccl, options, context, layout, std::move(mapping)),
          ""};
}

}  // namespace k25::nccl
