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

#define K25_NCCL_CALL(call) check_nccl((call), #call, __FILE__, __LINE__)

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

kernels::ElementType element_type(Dtype dtype) {
  return dtype == Dtype::fp32 ? kernels::ElementType::fp32 : kernels::ElementType::bf16;
}

// Rounds buffer sizes up so that 16-byte vector kernels and NCCL see aligned sizes.
std::size_t rounded(std::size_t bytes) {
  return (bytes + 255) / 256 * 256;
}

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

// The captured burst of one phase. Its graph handles are freed only while the transport is alive and healthy.
class NcclCapturedBurst final : public CapturedBurst {
 public:
  NcclCapturedBurst(CudaGraph graph, CudaGraphExec exec, std::weak_ptr<TransportHealth> health,
                    std::string what)
      : graph_(std::move(graph)),
        exec_(std::move(exec)),
        health_(std::move(health)),
        what_(std::move(what)) {}
  ~NcclCapturedBurst() override {
    const auto health = health_.lock();
    if (!health || health->poisoned) {
      (void)exec_.release();
      (void)graph_.release();
    }
  }
  cudaGraphExec_t exec() const { return exec_.get(); }
  const std::string& what() const { return what_; }

 private:
  CudaGraph graph_;
  CudaGraphExec exec_;
  std::weak_ptr<TransportHealth> health_;
  std::string what_;
};

// Emulated ranks (test mode): NCCL tells hosts apart by a hash of NCCL_HOSTID (else the host name), computed
// once per process, and refuses two ranks of one host on one GPU. A host id of its own per rank makes NCCL
// treat the ranks as separate hosts and connect them through its network transport; loopback keeps that
// traffic on this machine unless the user chose an interface. Set before this process's first NCCL call.
void present_as_own_host(const RankContext& context) {
  const std::string host_id = fmt::format("k25comm-emulated-{}-rank{}", context.host(), context.rank());
  ::setenv("NCCL_HOSTID", host_id.c_str(), 1);
  ::setenv("NCCL_SOCKET_IFNAME", "lo", 0);
}

std::string op_words(Phase phase, int tokens, std::size_t op, std::size_t ops, int layer) {
  return fmt::format("{} op #{} of {} (layer {}) at {} tokens", to_string(phase), op, ops, layer, tokens);
}

}  // namespace

NcclTransport::NcclTransport(const RunConfig& config, const RankContext& context, int device)
    : in_place_(config.sweep.in_place),
      include_permute_(config.sweep.include_permute),
      emulated_(config.transport.emulate_ranks),
      timeout_s_(config.transport.timeout_s),
      rank_(context.rank()),
      ranks_(context.size()),
      hang_(parse_hang_spec(config.transport.inject_hang)),
      device_(device) {
  if (!(timeout_s_ > 0.0)) throw UsageError("the watchdog timeout must be positive");
  if (emulated_) present_as_own_host(context);
  K25_CUDA_CHECK(cudaSetDevice(device_));
  stream_ = CudaStream::create();
  wrong_count_ = DeviceBuffer::allocate(sizeof(unsigned long long));
  wrong_host_ = PinnedHostBuffer::allocate(sizeof(unsigned long long));
  hang_flag_ = PinnedHostBuffer::allocate(sizeof(int));
  *hang_flag_.host<int>() = 1;
  hold_flag_ = PinnedHostBuffer::allocate(sizeof(int));
  *hold_flag_.host<int>() = 1;
  comm_ = NcclCommunicator::create(context, device_, timeout_s_);  // collective
}

NcclTransport::~NcclTransport() {
  if (hold_flag_.host() != nullptr) *hold_flag_.host<int>() = 1;  // never leave the stream held
  if (!health_->poisoned) {
    // Let launched work finish (bounded) before the communicator is finalized and the buffers freed.
    if (stream_ && !wait_for_stream(stream_.get(), comm_.get(), timeout_s_).ok()) poison();
  }
  if (health_->poisoned) {
    comm_.abort();
    (void)stream_.release();
    for (auto* buffer : {&allreduce_in_, &allreduce_out_, &send_, &recv_, &token_rows_, &wrong_count_})
      (void)buffer->release();
    for (auto& [key, phase] : prepared_) (void)phase.maps.release();
    for (auto& event : events_) (void)event.release();
    (void)wrong_host_.release();
    (void)hang_flag_.release();
    (void)hold_flag_.release();
  } else {
    comm_.finalize_and_destroy();
  }
  // Bursts that outlive the transport leak their graphs instead of touching a freed communicator.
  health_.reset();
}

std::string NcclTransport::clock_description() const {
  return fmt::format("GPU time between cudaEvents on the rank's CUDA stream (device {}), 0.5 us resolution",
                     device_);
}

void NcclTransport::poison() noexcept {
  health_->poisoned = true;
  // A held injected hang or stream hold lets go, so the stream can drain.
  for (PinnedHostBuffer* flag : {&hang_flag_, &hold_flag_})
    if (flag->host() != nullptr) *flag->host<int>() = 1;
}

void NcclTransport::allocate(const BufferSizes& sizes) {
  wait_stream("allocate");  // buffers may be replaced below: nothing may still use them
  sizes_.allreduce_bytes = std::max(sizes_.allreduce_bytes, sizes.allreduce_bytes);
  sizes_.alltoall_send_bytes = std::max(sizes_.alltoall_send_bytes, sizes.alltoall_send_bytes);
  sizes_.alltoall_recv_bytes = std::max(sizes_.alltoall_recv_bytes, sizes.alltoall_recv_bytes);
  const auto grow = [](DeviceBuffer& buffer, std::size_t bytes) {
    if (!buffer.get() || buffer.bytes() < bytes) buffer = DeviceBuffer::allocate(rounded(bytes));
  };
  grow(allreduce_in_, sizes_.allreduce_bytes);
  grow(allreduce_out_, sizes_.allreduce_bytes);
  grow(send_, sizes_.alltoall_send_bytes);
  grow(recv_, sizes_.alltoall_recv_bytes);
  // Timed runs move whatever the buffers hold; zeros keep NaN and denormal patterns out of the reductions.
  for (DeviceBuffer* buffer : {&allreduce_in_, &allreduce_out_, &send_, &recv_})
    K25_CUDA_CHECK(cudaMemsetAsync(buffer->get(), 0, buffer->bytes(), stream_.get()));
  wait_stream("allocate");
}

void NcclTransport::prepare(const PhasePlan& phase) {
  if (phase.ranks != ranks_)
    throw UsageError(fmt::format("plan for {} ranks given to a run of {} ranks", phase.ranks, ranks_));
  PreparedPhase prepared;
  prepared.ops.resize(phase.ops.size());
  std::vector<std::int32_t> maps;
  std::size_t token_row_bytes = 0;
  for (std::size_t i = 0; i < phase.ops.size(); ++i) {
    const CommOp& op = phase.ops[i];
    PreparedOp& out = prepared.ops[i];
    if (phase.phase == Phase::allreduce) {
      (void)nccl_type(phase.dtype);
      if (op.bytes > allreduce_in_.bytes())
        throw RuntimeFault(fmt::format("AllReduce of {} bytes exceeds the {} bytes allocated", op.bytes,
                                       allreduce_in_.bytes()));
      out.elements = op.bytes / dtype_bytes(phase.dtype);
      continue;
    }
    if (op.matrix_index < 0 || static_cast<std::size_t>(op.matrix_index) >= phase.matrices.size())
      throw RuntimeFault(fmt::format("{} op #{} has no byte matrix", to_string(phase.phase), i));
    out.layout = peer_layout(phase.matrices[static_cast<std::size_t>(op.matrix_index)], rank_);
    if (out.layout.send_total > send_.bytes() || out.layout.recv_total > recv_.bytes())
      throw RuntimeFault(fmt::format("{} op #{} needs {} / {} bytes to send / receive, {} / {} allocated",
                                     to_string(phase.phase), i, out.layout.send_total, out.layout.recv_total,
                                     send_.bytes(), recv_.bytes()));
    if (include_permute_ && phase.bytes_per_copy > 0 && phase.tokens > 0) {
      token_row_bytes = static_cast<std::size_t>(phase.tokens) * phase.bytes_per_copy;
      if (phase.phase == Phase::dispatch) {
        out.copies = out.layout.send_total / phase.bytes_per_copy;
        out.rows_offset = maps.size();
        const auto rows = dispatch_rows_of_copies(out.copies, phase.tokens);
        maps.insert(maps.end(), rows.begin(), rows.end());
      } else {
        out.copies = out.layout.recv_total / phase.bytes_per_copy;
        const auto csr = combine_copies_of_tokens(out.copies, phase.tokens);
        out.offsets_offset = maps.size();
        maps.insert(maps.end(), csr.offsets.begin(), csr.offsets.end());
        out.index_offset = maps.size();
        maps.insert(maps.end(), csr.index.begin(), csr.index.end());
      }
    }
  }
  if (!maps.empty()) {
    prepared.maps = DeviceBuffer::allocate(maps.size() * sizeof(std::int32_t));
    K25_CUDA_CHECK(cudaMemcpy(prepared.maps.get(), maps.data(), maps.size() * sizeof(std::int32_t),
                              cudaMemcpyHostToDevice));
  }
  if (token_row_bytes > token_rows_.bytes()) {
    wait_stream("prepare");
    token_rows_ = DeviceBuffer::allocate(rounded(token_row_bytes));
    K25_CUDA_CHECK(cudaMemset(token_rows_.get(), 0, token_rows_.bytes()));
  }
  // Timestamps for a per-op pass (one per op + 1) and a trial (2), created now rather than in a timed region.
  while (events_.size() < phase.ops.size() + 2) events_.push_back(CudaEvent::create());
  launched_.reserve(std::max(launched_.capacity(), phase.ops.size() * 2 + 2));
  marks_.reserve(std::max(marks_.capacity(), phase.ops.size() + 2));
  prepared_[{static_cast<int>(phase.phase), phase.tokens}] = std::move(prepared);
}

const NcclTransport::PreparedPhase& NcclTransport::prepared_for(const PhasePlan& phase) {
  const auto found = prepared_.find({static_cast<int>(phase.phase), phase.tokens});
  if (found == prepared_.end())
    throw RuntimeFault(
        fmt::format("{} phase at {} tokens launched before prepare()", to_string(phase.phase), phase.tokens));
  return found->second;
}

void NcclTransport::check_watchdog(const char* call, const char* file, int line) {
  if (!comm_.watchdog_fired()) return;
  WaitOutcome expired;
  expired.kind = WaitOutcome::Kind::timed_out;
  expired.failed_call = call;
  expired.detail = fmt::format(
      "{} did not return within {:g} s (watchdog timeout); the watchdog thread aborted "
      "the communicator",
      call, timeout_s_);
  fault(expired, describe_pending(), file, line);
}

void NcclTransport::check_nccl(ncclResult_t rc, const char* call, const char* file, int line) {
  // An aborted call may return ncclSuccess: the watchdog's word comes first.
  check_watchdog(call, file, line);
  if (rc == ncclSuccess) return;
  if (rc == ncclInProgress) {
    // A non-blocking communicator: the call goes on in the background; nothing else may touch the
    // communicator or its stream until it is ready again.
    const WaitOutcome ready = wait_for_communicator(comm_.get(), timeout_s_);
    if (ready.ok()) return;
    fault(ready, std::string("waiting for ") + call + " to be enqueued", file, line);
  }
  WaitOutcome failed;
  failed.kind = WaitOutcome::Kind::nccl_error;
  failed.failed_call = call;
  const char* last = ncclGetLastError(comm_.get());
  failed.detail = fmt::format("NCCL error {} ({}){}{}", static_cast<int>(rc), ncclGetErrorString(rc),
                              last != nullptr && last[0] != '\0' ? ": " : "", last != nullptr ? last : "");
  fault(failed, call, file, line);
}

void NcclTransport::maybe_inject_hang(const PhasePlan& phase, std::size_t op_index) {
  if (!hang_ || hang_fired_) return;
  if (hang_->phase != phase.phase || hang_->tokens != phase.tokens || hang_->op != op_index) return;
  if (hang_->rank >= 0 && hang_->rank != rank_) return;
  hang_fired_ = true;
  hang_words_ = op_words(phase.phase, phase.tokens, op_index, phase.ops.size(), phase.ops[op_index].layer);
  *hang_flag_.host<int>() = 0;
  // Bounded on the GPU too, well past the watchdog, in case this process dies without releasing it.
  const auto bound_ns = static_cast<std::uint64_t>((timeout_s_ + 120.0) * 1e9);
  K25_CUDA_CHECK(kernels::spin_until_released(hang_flag_.device<int>(), bound_ns, stream_.get()));
}

void NcclTransport::enqueue_alltoall(const PreparedOp& op) {
  const auto* send = send_.get<std::uint8_t>();
  auto* recv = recv_.get<std::uint8_t>();
  K25_NCCL_CALL(ncclGroupStart());
  for (int peer = 0; peer < ranks_; ++peer) {
    const auto p = static_cast<std::size_t>(peer);
    if (op.layout.send_bytes[p] > 0)
      K25_NCCL_CALL(ncclSend(send + op.layout.send_offset[p], op.layout.send_bytes[p], ncclUint8, peer,
                             comm_.get(), stream_.get()));
    if (op.layout.recv_bytes[p] > 0)
      K25_NCCL_CALL(ncclRecv(recv + op.layout.recv_offset[p], op.layout.recv_bytes[p], ncclUint8, peer,
                             comm_.get(), stream_.get()));
  }
  K25_NCCL_CALL(ncclGroupEnd());
}

void NcclTransport::enqueue_op(const PhasePlan& phase, const PreparedPhase& prepared, std::size_t op_index,
                               bool permute) {
  const PreparedOp& op = prepared.ops.at(op_index);
  const auto armed = comm_.guard();  // a blocking NCCL call that does not return is aborted by the watchdog
  if (phase.phase == Phase::allreduce) {
    void* in = allreduce_in_.get();
    void* out = in_place_ ? in : allreduce_out_.get();
    K25_NCCL_CALL(
        ncclAllReduce(in, out, op.elements, nccl_type(phase.dtype), ncclSum, comm_.get(), stream_.get()));
    return;
  }
  permute = permute && op.copies > 0;
  const auto* maps = prepared.maps.get<std::int32_t>();
  if (permute && phase.phase == Phase::dispatch)
    K25_CUDA_CHECK(kernels::moe_dispatch_pack(token_rows_.get<std::uint8_t>(), maps + op.rows_offset,
                                              op.copies, phase.bytes_per_copy, send_.get<std::uint8_t>(),
                                              stream_.get()));
  enqueue_alltoall(op);
  if (permute && phase.phase == Phase::combine) {
    const std::size_t element_bytes = phase.dtype == Dtype::fp32 ? 4 : 2;
    K25_CUDA_CHECK(kernels::moe_combine_unpack(recv_.get(), maps + op.offsets_offset, maps + op.index_offset,
                                               static_cast<std::uint64_t>(phase.tokens),
                                               phase.bytes_per_copy / element_bytes,
                                               element_type(phase.dtype), token_rows_.get(), stream_.get()));
  }
}

void NcclTransport::launch(const PhasePlan& phase, std::size_t op_index) {
  if (health_->poisoned) throw RuntimeFault("the nccl transport was aborted after an earlier fault");
  const PreparedPhase& prepared = prepared_for(phase);
  launched_.push_back({phase.phase, phase.tokens, op_index, phase.ops.size(), phase.ops.at(op_index).layer});
  maybe_inject_hang(phase, op_index);
  enqueue_op(phase, prepared, op_index, include_permute_);
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
  if (health_->poisoned) throw RuntimeFault("the nccl transport was aborted after an earlier fault");
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
  const std::string words = op_words(op.phase, op.tokens, op.op, op.ops, op.layer);
  const std::size_t unfinished = next_mark_position - first_pending;
  if (unfinished <= 1) return words + " did not finish";
  return fmt::format("{} (or one of the {} ops launched after it, not timed one by one) did not finish",
                     words, launched_.size() - first_pending - 1);
}

void NcclTransport::fault(const WaitOutcome& outcome, const std::string& activity, const char* file,
                          int line) {
  // An injected hang that is still held is the op the stream waits on, whatever the marks say.
  const bool injected = hang_fired_ && *hang_flag_.host<int>() == 0;
  poison();
  comm_.abort();
  const std::string where =
      injected ? hang_words_ + " did not finish (a hang was injected there by --inject-hang)" : activity;
  throw RuntimeFault(fmt::format("nccl transport, rank {} of {}: {}: {}; communicator aborted", rank_, ranks_,
                                 where, outcome.detail),
                     outcome.failed_call, file, line);
}

std::unique_ptr<CapturedBurst> NcclTransport::capture(const PhasePlan& phase) {
  if (health_->poisoned) throw RuntimeFault("the nccl transport was aborted after an earlier fault");
  const PreparedPhase& prepared = prepared_for(phase);
  const std::string what = fmt::format("graph of the {} burst at {} tokens ({} ops)", to_string(phase.phase),
                                       phase.tokens, phase.ops.size());
  // One eager pass first: NCCL connects peers and loads kernels lazily, and a capture must not be the first
  // use.
  for (std::size_t i = 0; i < phase.ops.size(); ++i) launch(phase, i);
  synchronize();

  activity_ = "capturing the " + what;
  CudaGraph graph;
  {
    // Thread-local capture mode: NCCL may finish a non-blocking group launch from its own thread.
    K25_CUDA_CHECK(cudaStreamBeginCapture(stream_.get(), cudaStreamCaptureModeThreadLocal));
    CaptureGuard guard(stream_.get());
    for (std::size_t i = 0; i < phase.ops.size(); ++i) {
      maybe_inject_hang(phase, i);
      enqueue_op(phase, prepared, i, include_permute_);
    }
    cudaGraph_t captured = nullptr;
    guard.dismiss();
    K25_CUDA_CHECK(cudaStreamEndCapture(stream_.get(), &captured));
    graph = CudaGraph(captured);
  }
  CudaGraphExec exec = CudaGraphExec::instantiate(graph.get());
  K25_CUDA_CHECK(cudaGraphUpload(exec.get(), stream_.get()));
  wait_stream("graph upload");
  activity_.clear();
  return std::make_unique<NcclCapturedBurst>(std::move(graph), std::move(exec), health_, what);
}

void NcclTransport::replay(CapturedBurst& burst) {
  if (health_->poisoned) throw RuntimeFault("the nccl transport was aborted after an earlier fault");
  auto* captured = dynamic_cast<NcclCapturedBurst*>(&burst);
  if (captured == nullptr)
    throw RuntimeFault("replay() was given a burst that the nccl transport did not capture");
  activity_ = "replaying the " + captured->what();
  const auto armed = comm_.guard();  // a launch queue that never drains would block here
  K25_CUDA_CHECK(cudaGraphLaunch(captured->exec(), stream_.get()));
}

void NcclTransport::hold_stream() {
  if (health_->poisoned) throw RuntimeFault("the nccl transport was aborted after an earlier fault");
  *hold_flag_.host<int>() = 0;
  // Bounded on the GPU by the watchdog timeout, should the host never come back to release it.
  const auto bound_ns = static_cast<std::uint64_t>(timeout_s_ * 1e9);
  K25_CUDA_CHECK(kernels::spin_until_released(hold_flag_.device<int>(), bound_ns, stream_.get()));
}

void NcclTransport::release_stream() {
  *hold_flag_.host<int>() = 1;
}

std::uint64_t NcclTransport::verify(const PhasePlan& phase, std::size_t op_index) {
  if (health_->poisoned) throw RuntimeFault("the nccl transport was aborted after an earlier fault");
  const PreparedPhase& prepared = prepared_for(phase);
  const PreparedOp& op = prepared.ops.at(op_index);
  auto* wrong = wrong_count_.get<unsigned long long>();
  cudaStream_t stream = stream_.get();
  K25_CUDA_CHECK(cudaMemsetAsync(wrong, 0, sizeof *wrong, stream));

  if (phase.phase == Phase::allreduce) {
    const auto type = element_type(phase.dtype);
    K25_CUDA_CHECK(kernels::fill_allreduce_input(allreduce_in_.get(), op.elements, type, rank_, stream));
    // An out-of-place result buffer starts as NaN (all bits set), so an op that wrote nothing is caught.
    if (!in_place_)
      K25_CUDA_CHECK(cudaMemsetAsync(allreduce_out_.get(), 0xFF, allreduce_out_.bytes(), stream));
    launch(phase, op_index);
    activity_ = "checking the result of " +
                op_words(phase.phase, phase.tokens, op_index, phase.ops.size(), phase.ops[op_index].layer);
    wait_stream("verify");
    const void* result = in_place_ ? allreduce_in_.get() : allreduce_out_.get();
    K25_CUDA_CHECK(kernels::count_allreduce_wrong(result, op.elements, type, ranks_, wrong, stream));
  } else {
    for (int peer = 0; peer < ranks_; ++peer) {
      const auto p = static_cast<std::size_t>(peer);
      K25_CUDA_CHECK(kernels::fill_alltoall_block(send_.get<std::uint8_t>() + op.layout.send_offset[p],
                                                  op.layout.send_bytes[p], rank_, peer, stream));
    }
    K25_CUDA_CHECK(cudaMemsetAsync(recv_.get(), 0, recv_.bytes(), stream));
    launched_.push_back({phase.phase, phase.tokens, op_index, phase.ops.size(), phase.ops[op_index].layer});
    maybe_inject_hang(phase, op_index);
    {
      const auto armed = comm_.guard();
      enqueue_alltoall(op);  // the exchange alone: the permute kernels would overwrite the checked send data
    }
    activity_ = "checking the result of " +
                op_words(phase.phase, phase.tokens, op_index, phase.ops.size(), phase.ops[op_index].layer);
    wait_stream("verify");
    for (int peer = 0; peer < ranks_; ++peer) {
      const auto p = static_cast<std::size_t>(peer);
      K25_CUDA_CHECK(kernels::count_alltoall_block_wrong(recv_.get<std::uint8_t>() + op.layout.recv_offset[p],
                                                         op.layout.recv_bytes[p], peer, rank_, wrong,
                                                         stream));
    }
  }
  K25_CUDA_CHECK(cudaMemcpyAsync(wrong_host_.host(), wrong, sizeof *wrong, cudaMemcpyDeviceToHost, stream));
  wait_stream("verify");
  activity_.clear();
  return *wrong_host_.host<unsigned long long>();
}

std::string NcclTransport::caveat(int ranks) const {
  std::string text;
  if (ranks == 1)
    text =
        "one rank: no data crosses a link. An out-of-place AllReduce is a device copy, an in-place one does "
        "no work, "
        "and an All-to-All is a copy to itself, so these figures measure launch and copy cost only, not a "
        "network.";
  if (emulated_) {
    if (!text.empty()) text += " ";
    text += fmt::format(
        "emulated ranks (test mode): the {} ranks share the GPUs this host sees, each presented to NCCL as a "
        "host "
        "of its own (NCCL_HOSTID) and connected through NCCL's socket transport over loopback; kernels of "
        "different ranks on one GPU take turns (time slicing unless MPS runs). These figures describe "
        "sockets "
        "and time slicing, not a GPU link.",
        ranks);
  }
  if (include_permute_) {
    if (!text.empty()) text += " ";
    text += "All-to-All times include the MoE dispatch pack and combine unpack kernels.";
  }
  return text;
}

}  // namespace k25::nccl
