// The nccl transport: launches, marks, bounded synchronization, graph capture/replay and the correctness
// pass.
#include "transport/nccl/nccl_transport.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "common/error.hpp"
#include "k25_kernels.h"
#include "transport/nccl/cuda_check.hpp"
#include "transport/nccl/gpu_burst_check.hpp"
#include "transport/op_wait_point.hpp"

// Inside a group of NCCL calls armed on the watchdog: returns the first failure, raised after disarming.
#define K25_NCCL_TRY(call)                                           \
  do {                                                               \
    if (const ncclResult_t k25_rc_ = (call); k25_rc_ != ncclSuccess) \
      return NcclFailure{k25_rc_, #call, __FILE__, __LINE__};        \
  } while (0)

namespace k25::nccl {
namespace {

ncclDataType_t nccl_type(Dtype dtype) {
  switch (dtype) {
    case Dtype::bf16:
      return ncclBfloat16;
    case Dtype::fp32:
      return ncclFloat32;
    case Dtype::fp8:
      break;
  }
  throw UsageError("the nccl transport reduces bf16 or fp32, not fp8");
}

// The NCCL call an op of `kind` makes, for the watchdog's message.
const char* nccl_call_name(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::allreduce:
      return "ncclAllReduce";
    case CollectiveKind::allgather:
      return "ncclAllGather";
    case CollectiveKind::reducescatter:
      return "ncclReduceScatter";
    case CollectiveKind::alltoallv:
      break;
  }
  return "the ncclSend/ncclRecv group";
}

kernels::ElementType element_type(Dtype dtype) {
  return dtype == Dtype::fp32 ? kernels::ElementType::fp32 : kernels::ElementType::bf16;
}

// Rounds buffer sizes up so that 16-byte vector kernels and NCCL see aligned sizes; registered buffers to
// NCCL's window alignment.
std::size_t rounded(std::size_t bytes, std::size_t alignment = 256) {
  return (bytes + alignment - 1) / alignment * alignment;
}
constexpr std::size_t kRegisteredAlignment = 4096;  // NCCL_WIN_REQUIRED_ALIGNMENT

// Ends a capture that an exception interrupted, so that the stream is usable (or at least not capturing)
// after.
class CaptureGuard {
 public:
  explicit CaptureGuard(cudaStream_t stream) : stream_(stream) {}
  CaptureGuard(const CaptureGuard&) = delete;
  CaptureGuard& operator=(const CaptureGuard&) = delete;
  ~CaptureGuard() {
    if (stream_ == nullptr) return;
    cudaGraph_t partial = nullptr;
    if (cudaStreamEndCapture(stream_, &partial) == cudaSuccess && partial != nullptr)
      (void)cudaGraphDestroy(partial);
    (void)cudaGetLastError();
  }
  void dismiss() { stream_ = nullptr; }

 private:
  cudaStream_t stream_;
};

// The captured burst of one phase. Its graph is freed with it, or earlier by the transport (destroy_graphs):
// before the communicator is aborted or destroyed, and when the transport goes.
class NcclCapturedBurst final : public CapturedBurst {
 public:
  NcclCapturedBurst(std::shared_ptr<CapturedGraph> graph, std::string what)
      : graph_(std::move(graph)), what_(std::move(what)) {}
  cudaGraphExec_t exec() const { return graph_->exec.get(); }
  const std::string& what() const { return what_; }

 private:
  std::shared_ptr<CapturedGraph> graph_;
  std::string what_;
};

// Emulated ranks (test mode): NCCL tells hosts apart by a hash of NCCL_HOSTID (else the host name), computed
// once per process (misc/utils.cc, getHostHashOnce), and refuses two ranks of one host on one GPU. A host id
// of its own per rank makes NCCL treat the ranks as separate hosts and connect them through its network
// transport. That network is NCCL's own socket transport (NCCL_NET=Socket, whatever the environment says: an
// InfiniBand device or a net plugin on the host would otherwise carry the traffic and make the report's
// "sockets over loopback" untrue); loopback keeps it on this machine unless the user chose an interface. Set
// before this process's first NCCL call.
void present_as_own_host(const RankContext& context) {
  const std::string host_id = fmt::format("k25comm-emulated-{}-rank{}", context.host(), context.rank());
  ::setenv("NCCL_HOSTID", host_id.c_str(), 1);
  ::setenv("NCCL_NET", "Socket", 1);
  ::setenv("NCCL_SOCKET_IFNAME", "lo", 0);
}

}  // namespace

NcclTransport::NcclTransport(const TransportOptions& options, const RankContext& context, int device)
    : in_place_(options.in_place),
      emulated_(options.emulate_ranks),
      register_mode_(options.nccl_register),
      world_(context.world()),
      timeout_s_(options.timeout_s),
      rank_(context.rank()),
      ranks_(context.size()),
      device_(device) {
  if (!(timeout_s_ > 0.0)) throw UsageError("the watchdog timeout must be positive");
  if (register_mode_ == NcclRegister::symmetric && !K25_NCCL_HAS_WINDOWS)
    throw UsageError(
        "--nccl-register symmetric: this k25comm was built against NCCL headers older than 2.27, which have no ncclCommWindowRegister; rebuild against NCCL 2.27.3 or later, or use --nccl-register local");
  if (emulated_) present_as_own_host(context);
  K25_CUDA_CHECK(cudaSetDevice(device_));
  stream_ = CudaStream::create();
  wrong_count_ = DeviceBuffer::allocate(sizeof(unsigned long long));
  wrong_host_ = PinnedHostBuffer::allocate(sizeof(unsigned long long));
  stall_flag_ = PinnedHostBuffer::allocate(sizeof(int));
  *stall_flag_.host<int>() = 1;
  hold_flag_ = PinnedHostBuffer::allocate(sizeof(int));
  *hold_flag_.host<int>() = 1;
  comm_ = NcclCommunicator::create(context, device_, timeout_s_);  // collective
}

NcclTransport::~NcclTransport() {
  if (hold_flag_.host() != nullptr) *hold_flag_.host<int>() = 1;  // never leave the stream held
  if (!poisoned_) {
    // Let launched work finish (bounded) before the communicator is finalized and the buffers freed.
    if (stream_ && !wait_for_stream(stream_.get(), comm_.get(), timeout_s_).ok()) poison();
  }
  destroy_graphs();  // graphs hold the communicator: ncclCommAbort and ncclCommDestroy wait for them
  if (poisoned_) {
    comm_.abort("an earlier fault, at teardown");
    send_registration_.release();
    recv_registration_.release();
    (void)stream_.release();
    for (auto* buffer :
         {&send_, &recv_, &rows_, &wrong_count_, &residual_, &norm_out_, &weight_, &epilogue_reference_})
      (void)buffer->release();
    for (auto& burst : bursts_) (void)burst.maps.release();
    for (auto& event : events_) (void)event.release();
    (void)wrong_host_.release();
    (void)stall_flag_.release();
    (void)hold_flag_.release();
    return;
  }
  // Registrations go before the communicator, the buffers after it. A window's deregistration may wait for
  // every rank: armed on the watchdog.
  if (comm_) {
    const OpWaitPoint point(register_mode_ == NcclRegister::symmetric ? "ncclCommWindowDeregister at teardown"
                                                                      : "ncclCommDeregister at teardown");
    const ArmedWait armed(comm_.watchdog(), point);
    send_registration_.reset();
    recv_registration_.reset();
  }
  comm_.finalize_and_destroy();
}

std::string NcclTransport::clock_description() const {
  return fmt::format("GPU time between cudaEvents on the rank's CUDA stream (device {}), 0.5 us resolution",
                     device_);
}

void NcclTransport::poison() noexcept {
  poisoned_ = true;
  // A held injected stall or stream hold lets go, so the stream can drain.
  for (PinnedHostBuffer* flag : {&stall_flag_, &hold_flag_})
    if (flag->host() != nullptr) *flag->host<int>() = 1;
}

void NcclTransport::throw_if_poisoned() const {
  if (poisoned_) throw RuntimeFault("the nccl transport was aborted after an earlier fault");
}

// A capture the fault interrupted holds the communicator too: its partial graph goes before the abort.
void NcclTransport::end_capture() noexcept {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (stream_ && cudaStreamIsCapturing(stream_.get(), &status) == cudaSuccess &&
      status != cudaStreamCaptureStatusNone) {
    cudaGraph_t partial = nullptr;
    if (cudaStreamEndCapture(stream_.get(), &partial) == cudaSuccess && partial != nullptr)
      (void)cudaGraphDestroy(partial);
  }
  (void)cudaGetLastError();
}

// An executable graph still running is freed when its launch completes (cudaGraphExecDestroy); NCCL's hold on
// the communicator goes with it, so that ncclCommAbort, which first stops the kernels, then finds none left.
void NcclTransport::destroy_graphs() noexcept {
  for (auto& weak : graphs_)
    if (const auto graph = weak.lock()) graph->destroy();
  graphs_.clear();
}

void NcclTransport::allocate(const BufferSizes& sizes) {
  wait_stream("allocate");  // buffers may be replaced below: nothing may still use them
  sizes_.send_bytes = std::max(sizes_.send_bytes, sizes.send_bytes);
  sizes_.recv_bytes = std::max(sizes_.recv_bytes, sizes.recv_bytes);
  sizes_.rows_bytes = std::max(sizes_.rows_bytes, sizes.rows_bytes);
  if (register_mode_ == NcclRegister::symmetric) {
    // Every rank registers its window at one size, together: the largest any rank needs.
    unsigned long long largest[2] = {sizes_.send_bytes, sizes_.recv_bytes};
    K25_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, largest, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, world_));
    sizes_.send_bytes = largest[0];
    sizes_.recv_bytes = largest[1];
  }
  grow_registered(send_, send_registration_, sizes_.send_bytes);
  grow_registered(recv_, recv_registration_, sizes_.recv_bytes);
  if (!rows_.get() || rows_.bytes() < sizes_.rows_bytes)
    rows_ = DeviceBuffer::allocate(rounded(sizes_.rows_bytes));  // local kernels only: never registered
  if (sizes.epilogue_bytes > 0 && (!residual_.get() || residual_.bytes() < sizes.epilogue_bytes)) {
    residual_ = DeviceBuffer::allocate(rounded(sizes.epilogue_bytes));
    norm_out_ = DeviceBuffer::allocate(rounded(sizes.epilogue_bytes));
    weight_ = DeviceBuffer::allocate(rounded(sizes.epilogue_row_bytes));
    // Six rows of floats (add_rmsnorm.hpp's EpilogueReference): at most two floats per two bytes of a row.
    epilogue_reference_ = DeviceBuffer::allocate(12 * sizes.epilogue_row_bytes);
  }
  // Timed runs move whatever the buffers hold; zeros keep NaN and denormal patterns out of the reductions.
  for (DeviceBuffer* buffer : {&send_, &recv_, &rows_, &residual_, &norm_out_, &weight_})
    if (buffer->get()) K25_CUDA_CHECK(cudaMemsetAsync(buffer->get(), 0, buffer->bytes(), stream_.get()));
  wait_stream("allocate");
}

void NcclTransport::grow_registered(DeviceBuffer& buffer, NcclRegistration& registration, std::size_t bytes) {
  if (buffer.get() && buffer.bytes() >= bytes) return;
  if (register_mode_ == NcclRegister::none) {
    buffer = DeviceBuffer::allocate(rounded(bytes));
    return;
  }
  // Registration and deregistration of a window wait for every rank: armed on the watchdog.
  const bool local = register_mode_ == NcclRegister::local;
  {
    const OpWaitPoint point(local ? "ncclCommDeregister of a buffer being grown"
                                  : "ncclCommWindowDeregister of a buffer being grown");
    const ArmedWait armed(comm_.watchdog(), point);
    registration.reset();  // before the memory it names is freed
  }
  buffer = DeviceBuffer();
  buffer = allocate_nccl_memory(rounded(std::max<std::size_t>(bytes, 1), kRegisteredAlignment));
  ncclComm_t comm = comm_.get();
  const OpWaitPoint point(local ? "ncclCommRegister" : "ncclCommWindowRegister");
  NcclFailure failure;
  {
    const ArmedWait armed(comm_.watchdog(), point);
    failure = [&]() -> NcclFailure {
      if (local) {
        void* handle = nullptr;
        K25_NCCL_TRY(ncclCommRegister(comm, buffer.get(), buffer.bytes(), &handle));
        registration = NcclRegistration::local(comm, handle);
        return {};
      }
#if K25_NCCL_HAS_WINDOWS
      ncclWindow_t window = nullptr;
      K25_NCCL_TRY(
          ncclCommWindowRegister(comm, buffer.get(), buffer.bytes(), &window, NCCL_WIN_COLL_SYMMETRIC));
      registration = NcclRegistration::window(comm, window);
#endif
      return {};
    }();
  }
  if (failure.rc != ncclSuccess) fail_nccl(failure, point.describe());
}

BurstId NcclTransport::prepare(const OpBurst& burst) {
  PreparedBurst prepared{burst, {}, {}};
  prepared.ops.resize(burst.ops.size());
  std::vector<std::int32_t> maps;
  const auto append = [&maps](const std::vector<std::int32_t>& values) {
    const std::size_t at = maps.size();
    maps.insert(maps.end(), values.begin(), values.end());
    return at;
  };
  for (std::size_t i = 0; i < burst.ops.size(); ++i) {
    const CollectiveOp& op = burst.ops[i];
    PreparedOp& out = prepared.ops[i];
    if (kind_info(op.kind).reduces) (void)nccl_type(op.dtype);
    if (op.kind == CollectiveKind::alltoallv) {
      if (op.send_bytes.size() != static_cast<std::size_t>(ranks_) ||
          op.recv_bytes.size() != static_cast<std::size_t>(ranks_))
        throw RuntimeFault(fmt::format("{} has per-peer counts for {} ranks in a run of {}",
                                       op_words(burst, i), op.send_bytes.size(), ranks_));
      out.layout = peer_layout(op);
    }
    if (op.send_buffer_bytes(ranks_) > send_.bytes() || op.recv_buffer_bytes(ranks_) > recv_.bytes())
      throw RuntimeFault(fmt::format("{} needs {} / {} bytes to send / receive, {} / {} allocated",
                                     op_words(burst, i), op.send_buffer_bytes(ranks_),
                                     op.recv_buffer_bytes(ranks_), send_.bytes(), recv_.bytes()));
    if (op.gather_before) {
      if (op.gather_before->source_rows * op.gather_before->row_bytes > rows_.bytes())
        throw RuntimeFault(fmt::format("{}: its row gather needs more than the {} row bytes allocated",
                                       op_words(burst, i), rows_.bytes()));
      out.rows_offset = append(op.gather_before->rows);
    }
    if (op.sum_after) {
      out.offsets_offset = append(op.sum_after->offsets);
      out.index_offset = append(op.sum_after->index);
    }
  }
  if (!maps.empty()) {
    prepared.maps = DeviceBuffer::allocate(maps.size() * sizeof(std::int32_t));
    K25_CUDA_CHECK(cudaMemcpy(prepared.maps.get(), maps.data(), maps.size() * sizeof(std::int32_t),
                              cudaMemcpyHostToDevice));
  }
  // Timestamps for a per-op pass (one per op + 1), a trial (2) or a decode trial (two per op + 1: after each
  // gap and after each op), created now rather than in a timed region.
  const std::size_t ops = burst.ops.size();
  const bool gaps = std::any_of(burst.ops.begin(), burst.ops.end(),
                                [](const CollectiveOp& op) { return op.busy_before_us > 0; });
  const std::size_t slots = gaps ? 2 * ops + 2 : ops + 2;
  while (events_.size() < slots) events_.push_back(CudaEvent::create());
  launched_.reserve(std::max(launched_.capacity(), ops * 2 + 2));
  marks_.reserve(std::max(marks_.capacity(), slots));
  bursts_.push_back(std::move(prepared));
  return bursts_.size() - 1;
}

const NcclTransport::PreparedBurst& NcclTransport::prepared(BurstId burst) const {
  if (burst >= bursts_.size()) throw RuntimeFault(fmt::format("burst {} launched before prepare()", burst));
  return bursts_[burst];
}

void NcclTransport::fail_nccl(const NcclFailure& failure, const std::string& activity) {
  WaitOutcome failed;
  failed.kind = WaitOutcome::Kind::nccl_error;
  failed.failed_call = failure.call;
  const char* last = ncclGetLastError(comm_.get());
  failed.detail =
      fmt::format("NCCL error {} ({}){}{}", static_cast<int>(failure.rc), ncclGetErrorString(failure.rc),
                  last != nullptr && last[0] != '\0' ? ": " : "", last != nullptr ? last : "");
  fault(failed, activity, failure.file, failure.line);
}

// Test only (--inject-hang): the stream waits on a flag that nothing releases, bounded on the GPU well past
// the watchdog in case this process dies without releasing it.
void NcclTransport::enqueue_stall(const PreparedBurst& burst, std::size_t op_index) {
  stalled_ = true;
  stall_words_ = op_words(burst.burst, op_index);
  *stall_flag_.host<int>() = 0;
  const auto bound_ns = static_cast<std::uint64_t>((timeout_s_ + 120.0) * 1e9);
  K25_CUDA_CHECK(kernels::spin_until_released(stall_flag_.device<int>(), bound_ns, stream_.get()));
}

void* NcclTransport::input(const CollectiveOp& op) const {
  // In-place AllGather: this rank's part already sits at its place in the result (NCCL's in-place form).
  if (in_place_ && op.kind == CollectiveKind::allgather)
    return recv_.get<std::uint8_t>() + static_cast<std::size_t>(rank_) * op.count * dtype_bytes(op.dtype);
  return send_.get();
}

void* NcclTransport::result(const CollectiveOp& op) const {
  if (!in_place_ || op.kind == CollectiveKind::alltoallv || op.kind == CollectiveKind::allgather)
    return recv_.get();
  // In-place ReduceScatter: this rank's part of the sum lands at its place in the input.
  if (op.kind == CollectiveKind::reducescatter)
    return send_.get<std::uint8_t>() + static_cast<std::size_t>(rank_) * op.count * dtype_bytes(op.dtype);
  return send_.get();
}

// One launch per kind.
NcclTransport::NcclFailure NcclTransport::enqueue_collective(const CollectiveOp& op,
                                                             const PreparedOp& prepared) {
  ncclComm_t comm = comm_.get();
  cudaStream_t stream = stream_.get();
  switch (op.kind) {
    case CollectiveKind::allreduce:
      K25_NCCL_TRY(
          ncclAllReduce(input(op), result(op), op.count, nccl_type(op.dtype), ncclSum, comm, stream));
      return {};
    case CollectiveKind::allgather:
      // Moved as bytes: a copy is the same whatever the element type.
      K25_NCCL_TRY(
          ncclAllGather(input(op), result(op), op.count * dtype_bytes(op.dtype), ncclUint8, comm, stream));
      return {};
    case CollectiveKind::reducescatter:
      K25_NCCL_TRY(
          ncclReduceScatter(input(op), result(op), op.count, nccl_type(op.dtype), ncclSum, comm, stream));
      return {};
    case CollectiveKind::alltoallv:
      break;
  }
  const auto* send = send_.get<std::uint8_t>();
  auto* recv = recv_.get<std::uint8_t>();
  const PeerLayout& layout = prepared.layout;
  // A failed send or receive leaves the group open: the fault path aborts the communicator with it.
  K25_NCCL_TRY(ncclGroupStart());
  for (int peer = 0; peer < ranks_; ++peer) {
    const auto p = static_cast<std::size_t>(peer);
    if (layout.send_bytes[p] > 0)
      K25_NCCL_TRY(
          ncclSend(send + layout.send_offset[p], layout.send_bytes[p], ncclUint8, peer, comm, stream));
    if (layout.recv_bytes[p] > 0)
      K25_NCCL_TRY(
          ncclRecv(recv + layout.recv_offset[p], layout.recv_bytes[p], ncclUint8, peer, comm, stream));
  }
  K25_NCCL_TRY(ncclGroupEnd());
  return {};
}

void NcclTransport::enqueue_op(const PreparedBurst& burst, std::size_t op_index, bool with_local_steps,
                               bool with_stall) {
  const CollectiveOp& op = burst.burst.ops.at(op_index);
  const PreparedOp& prepared = burst.ops[op_index];
  if (op.stall_before && with_stall) enqueue_stall(burst, op_index);
  const auto* maps = burst.maps.get<std::int32_t>();
  if (with_local_steps && op.gather_before) {
    const RowGather& gather = *op.gather_before;
    K25_CUDA_CHECK(kernels::moe_dispatch_pack(rows_.get<std::uint8_t>(), maps + prepared.rows_offset,
                                              gather.rows.size(), gather.row_bytes, send_.get<std::uint8_t>(),
                                              stream_.get()));
  }
  NcclFailure failure;
  {
    // A blocking NCCL call that does not return ends the job (nccl_communicator.hpp says why).
    const OpWaitPoint point(nccl_call_name(op.kind), &burst.burst, op_index, op.send_buffer_bytes(ranks_));
    const ArmedWait armed(comm_.watchdog(), point);
    failure = enqueue_collective(op, prepared);
  }
  if (failure.rc != ncclSuccess) fail_nccl(failure, op_words(burst.burst, op_index));
  enqueue_epilogue(op);
  if (with_local_steps && op.sum_after) {
    const SegmentSum& sum = *op.sum_after;
    K25_CUDA_CHECK(kernels::moe_combine_unpack(
        recv_.get(), maps + prepared.offsets_offset, maps + prepared.index_offset, sum.offsets.size() - 1,
        sum.row_elements, element_type(sum.dtype), rows_.get(), stream_.get()));
  }
}

// What an engine runs after NCCL's AllReduce where it does not fuse: a kernel of its own on the same stream.
void NcclTransport::enqueue_epilogue(const CollectiveOp& op) {
  if (op.epilogue_rows == 0) return;
  K25_CUDA_CHECK(kernels::add_rmsnorm(result(op), residual_.get(), weight_.get(), norm_out_.get(),
                                      op.epilogue_rows, op.epilogue_row_elements(), element_type(op.dtype),
                                      stream_.get()));
}

void NcclTransport::launch(BurstId id, std::size_t op_index) {
  throw_if_poisoned();
  const PreparedBurst& burst = prepared(id);
  launched_.push_back({id, op_index});
  enqueue_op(burst, op_index, true, true);
}

// The gap is a kernel on the op stream: the GPU is busy for it as for a GEMM, and the host, which does not
// wait for it, runs ahead enqueueing the next ops as a serving engine does.
void NcclTransport::launch_gap(BurstId id, std::size_t op_index) {
  throw_if_poisoned();
  const double gap_us = prepared(id).burst.ops[op_index].busy_before_us;
  if (gap_us <= 0) return;
  K25_CUDA_CHECK(kernels::busy_for(static_cast<std::uint64_t>(gap_us * 1e3), stream_.get()));
}

int NcclTransport::mark() {
  if (next_event_ == static_cast<int>(events_.size())) events_.push_back(CudaEvent::create());
  const int slot = next_event_++;
  K25_CUDA_CHECK(cudaEventRecord(events_[static_cast<std::size_t>(slot)].get(), stream_.get()));
  marks_.emplace_back(slot, launched_.size());
  return slot;
}

void NcclTransport::reset_marks() {
  next_event_ = 0;
  marks_.clear();
}

void NcclTransport::wait_stream(const char* what) {
  const WaitOutcome outcome = wait_for_stream(stream_.get(), comm_.get(), timeout_s_);
  if (!outcome.ok())
    fault(outcome, activity_.empty() ? describe_pending() : activity_ + " (" + what + ")", __FILE__,
          __LINE__);
  launched_.clear();
  marks_.clear();
}

void NcclTransport::synchronize() {
  throw_if_poisoned();
  wait_stream("synchronize");
  activity_.clear();
}

double NcclTransport::elapsed_us(int from_slot, int to_slot) {
  if (from_slot < 0 || to_slot < 0 || from_slot >= next_event_ || to_slot >= next_event_)
    throw RuntimeFault(fmt::format("elapsed_us({}, {}) of {} marks", from_slot, to_slot, next_event_));
  float ms = 0.0f;
  K25_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[static_cast<std::size_t>(from_slot)].get(),
                                      events_[static_cast<std::size_t>(to_slot)].get()));
  return static_cast<double>(ms) * 1000.0;
}

// Which op the stream is stuck on: the ops after the last mark that completed. Exact when marks bracket
// single ops (the per-op pass); otherwise the first op that may be unfinished and how many were launched
// after it.
std::string NcclTransport::describe_pending() const {
  if (launched_.empty()) return "no op launched (waiting for earlier work on the stream)";
  std::size_t first_pending = 0;
  std::size_t next_mark_position = launched_.size();
  for (std::size_t m = 0; m < marks_.size(); ++m) {
    const auto [slot, position] = marks_[m];
    if (cudaEventQuery(events_[static_cast<std::size_t>(slot)].get()) == cudaSuccess) {
      first_pending = std::max(first_pending, position);
    }
  }
  for (const auto& [slot, position] : marks_)
    if (position > first_pending) {
      next_mark_position = position;
      break;
    }
  (void)cudaGetLastError();
  first_pending = std::min(first_pending, launched_.size() - 1);
  const Launched& op = launched_[first_pending];
  const std::string words = op_words(bursts_[op.burst].burst, op.op);
  const std::size_t unfinished = next_mark_position - first_pending;
  if (unfinished <= 1) return words + " did not finish";
  return fmt::format("{} (or one of the {} ops launched after it, not timed one by one) did not finish",
                     words, launched_.size() - first_pending - 1);
}

void NcclTransport::fault(const WaitOutcome& outcome, const std::string& activity, const char* file,
                          int line) {
  // An injected stall that is still held is what the stream waits on, whatever the marks say.
  const bool injected = stalled_ && *stall_flag_.host<int>() == 0;
  poison();
  const std::string where =
      injected ? stall_words_ + " did not finish (a hang was injected there by --inject-hang)" : activity;
  end_capture();
  destroy_graphs();
  comm_.abort(fmt::format("{} on rank {} of {}", where, rank_, ranks_));
  throw RuntimeFault(fmt::format("nccl transport, rank {} of {}: {}: {}; communicator aborted", rank_, ranks_,
                                 where, outcome.detail),
                     outcome.failed_call, file, line);
}

std::unique_ptr<CapturedBurst> NcclTransport::capture(BurstId id) {
  throw_if_poisoned();
  const PreparedBurst& burst = prepared(id);
  const std::string what =
      fmt::format("graph of the {} burst ({} ops)", burst.burst.what, burst.burst.ops.size());
  // One eager pass first: NCCL connects peers and loads kernels lazily, and a capture must not be the first
  // use. An injected hang is left to the graph, so that graph mode's fault path (graphs destroyed before the
  // abort) is the one it tests.
  for (std::size_t i = 0; i < burst.burst.ops.size(); ++i) {
    launched_.push_back({id, i});
    enqueue_op(burst, i, true, false);
  }
  synchronize();

  activity_ = "capturing the " + what;
  auto graph = std::make_shared<CapturedGraph>();
  graphs_.push_back(graph);
  {
    // Thread-local capture mode: NCCL may finish a non-blocking group launch from its own thread.
    K25_CUDA_CHECK(cudaStreamBeginCapture(stream_.get(), cudaStreamCaptureModeThreadLocal));
    CaptureGuard guard(stream_.get());
    for (std::size_t i = 0; i < burst.burst.ops.size(); ++i) enqueue_op(burst, i, true, true);
    cudaGraph_t captured = nullptr;
    guard.dismiss();
    K25_CUDA_CHECK(cudaStreamEndCapture(stream_.get(), &captured));
    graph->graph = CudaGraph(captured);
  }
  graph->exec = CudaGraphExec::instantiate(graph->graph.get());
  K25_CUDA_CHECK(cudaGraphUpload(graph->exec.get(), stream_.get()));
  wait_stream("graph upload");
  activity_.clear();
  return std::make_unique<NcclCapturedBurst>(std::move(graph), what);
}

void NcclTransport::replay(CapturedBurst& burst) {
  throw_if_poisoned();
  auto* captured = dynamic_cast<NcclCapturedBurst*>(&burst);
  if (captured == nullptr)
    throw RuntimeFault("replay() was given a burst that the nccl transport did not capture");
  activity_ = "replaying the " + captured->what();
  cudaError_t launched = cudaSuccess;
  {
    const OpWaitPoint point(activity_.c_str());  // a launch queue that never drains would block here
    const ArmedWait armed(comm_.watchdog(), point);
    launched = cudaGraphLaunch(captured->exec(), stream_.get());
  }
  if (launched != cudaSuccess) throw_cuda_error(launched, "cudaGraphLaunch", __FILE__, __LINE__);
}

void NcclTransport::hold_stream() {
  throw_if_poisoned();
  *hold_flag_.host<int>() = 0;
  // Bounded on the GPU by the watchdog timeout, should the host never come back to release it.
  const auto bound_ns = static_cast<std::uint64_t>(timeout_s_ * 1e9);
  K25_CUDA_CHECK(kernels::spin_until_released(hold_flag_.device<int>(), bound_ns, stream_.get()));
}

void NcclTransport::release_stream() {
  *hold_flag_.host<int>() = 1;
}

// Fills the op's input with check_pattern.hpp's data, runs the collective alone (no row gather or segment
// sum: they would overwrite the checked data), and counts the result's elements that differ from the expected
// ones.
std::uint64_t NcclTransport::verify(BurstId id, std::size_t op_index) {
  throw_if_poisoned();
  const PreparedBurst& burst = prepared(id);
  const CollectiveOp& op = burst.burst.ops.at(op_index);
  const PreparedOp& layout = burst.ops[op_index];
  auto* wrong = wrong_count_.get<unsigned long long>();
  cudaStream_t stream = stream_.get();
  K25_CUDA_CHECK(cudaMemsetAsync(wrong, 0, sizeof *wrong, stream));
  const std::size_t part_bytes = op.count * dtype_bytes(op.dtype);

  switch (op.kind) {
    case CollectiveKind::allreduce:
    case CollectiveKind::reducescatter:
      K25_CUDA_CHECK(kernels::fill_allreduce_input(input(op),
                                                   kind_info(op.kind).send_elements(op.count, ranks_),
                                                   element_type(op.dtype), rank_, stream));
      // An out-of-place result buffer starts as NaN (all bits set), so an op that wrote nothing is caught.
      if (!in_place_) K25_CUDA_CHECK(cudaMemsetAsync(recv_.get(), 0xFF, recv_.bytes(), stream));
      break;
    case CollectiveKind::allgather:
      // In place too: this rank's part (the input, inside the result) is filled after, so a gather that did
      // nothing leaves the other parts zero and is counted.
      K25_CUDA_CHECK(cudaMemsetAsync(recv_.get(), 0, recv_.bytes(), stream));
      K25_CUDA_CHECK(
          kernels::fill_alltoall_block(static_cast<std::uint8_t*>(input(op)), part_bytes, rank_, 0, stream));
      break;
    case CollectiveKind::alltoallv:
      for (int peer = 0; peer < ranks_; ++peer) {
        const auto p = static_cast<std::size_t>(peer);
        K25_CUDA_CHECK(kernels::fill_alltoall_block(send_.get<std::uint8_t>() + layout.layout.send_offset[p],
                                                    layout.layout.send_bytes[p], rank_, peer, stream));
      }
      K25_CUDA_CHECK(cudaMemsetAsync(recv_.get(), 0, recv_.bytes(), stream));
      break;
  }
  launched_.push_back({id, op_index});
  enqueue_op(burst, op_index, false, true);
  activity_ = "checking the result of " + op_words(burst.burst, op_index);
  wait_stream("verify");

  switch (op.kind) {
    case CollectiveKind::allreduce:
    case CollectiveKind::reducescatter: {
      const std::uint64_t first =
          op.kind == CollectiveKind::reducescatter ? static_cast<std::uint64_t>(rank_) * op.count : 0;
      K25_CUDA_CHECK(kernels::count_allreduce_wrong(result(op), op.count, first, element_type(op.dtype),
                                                    ranks_, wrong, stream));
      break;
    }
    case CollectiveKind::allgather:
      for (int peer = 0; peer < ranks_; ++peer)
        K25_CUDA_CHECK(kernels::count_alltoall_block_wrong(
            static_cast<const std::uint8_t*>(result(op)) + static_cast<std::size_t>(peer) * part_bytes,
            part_bytes, peer, 0, wrong, stream));
      break;
    case CollectiveKind::alltoallv:
      for (int peer = 0; peer < ranks_; ++peer) {
        const auto p = static_cast<std::size_t>(peer);
        K25_CUDA_CHECK(
            kernels::count_alltoall_block_wrong(recv_.get<std::uint8_t>() + layout.layout.recv_offset[p],
                                                layout.layout.recv_bytes[p], peer, rank_, wrong, stream));
      }
      break;
  }
  K25_CUDA_CHECK(cudaMemcpyAsync(wrong_host_.host(), wrong, sizeof *wrong, cudaMemcpyDeviceToHost, stream));
  wait_stream("verify");
  activity_.clear();
  return *wrong_host_.host<unsigned long long>();
}

std::uint64_t NcclTransport::verify_burst(BurstId id) {
  throw_if_poisoned();
  const PreparedBurst& burst = prepared(id);
  if (burst.burst.ops.empty()) return 0;
  const CollectiveOp& first = burst.burst.ops.front();
  auto* wrong = wrong_count_.get<unsigned long long>();
  const GpuCheckBuffers buffers{
      input(first),  result(first),   in_place_ ? nullptr : recv_.get(), recv_.bytes(), residual_.get(),
      weight_.get(), norm_out_.get(), epilogue_reference_.get<float>(),  wrong};
  enqueue_burst_check(
      burst.burst, buffers, rank_, ranks_, stream_.get(),
      [&](std::size_t k) {
        launched_.push_back({id, k});
        enqueue_op(burst, k, false, true);
      },
      [&](const char* what) { wait_stream(what); });
  K25_CUDA_CHECK(
      cudaMemcpyAsync(wrong_host_.host(), wrong, sizeof *wrong, cudaMemcpyDeviceToHost, stream_.get()));
  activity_ = "checking the AllReduce burst " + burst.burst.what;
  wait_stream("verify");
  activity_.clear();
  return *wrong_host_.host<unsigned long long>();
}

std::string NcclTransport::caveat(int ranks) const {
  std::string text;
  if (ranks == 1)
    text =
        "one rank: no data crosses a link. "
        "An out-of-place AllReduce is a device copy, an in-place one does no work, and an All-to-All is a copy to itself, so these figures measure launch and copy cost only, not a network.";
  if (emulated_) {
    if (!text.empty()) text += " ";
    text += fmt::format(
        "emulated ranks (test mode): the {} ranks share the GPUs this host sees, each presented to NCCL as a host of its own (NCCL_HOSTID) and connected through NCCL's socket transport over loopback; kernels of different ranks on one GPU take turns (time slicing unless MPS runs). "
        "These figures describe sockets and time slicing, not a GPU link.",
        ranks);
  }
  return text;
}

}  // namespace k25::nccl
