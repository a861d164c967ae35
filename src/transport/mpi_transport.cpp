// Host-memory AllReduce (bf16 through a user-defined op, fp32 natively) and All-to-Allv with planned counts,
// each wait bounded by the collective timeout (a watchdog thread around the blocking call, or a polled
// non-blocking one).
#include "transport/mpi_transport.hpp"

#include <climits>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "common/bounded_wait.hpp"
#include "common/error.hpp"
#include "common/wait_watchdog.hpp"
#include "transport/check_pattern.hpp"

namespace k25 {
namespace {

int to_int_count(std::uint64_t bytes, const char* what) {
  if (bytes > static_cast<std::uint64_t>(INT_MAX))
    throw UsageError(
        fmt::format("{} of {} bytes exceeds MPI's int count limit on the host transport", what, bytes));
  return static_cast<int>(bytes);
}

// The op a timed-out wait names, described only on expiry: "MPI_Allreduce of allreduce at 16 tokens, op 37 of
// 122 (14336 bytes)". `bytes`: the AllReduce's vector, or what this rank sends in the All-to-All.
struct OpPoint final : WaitPoint {
  OpPoint(const char* call_name, const PhasePlan* plan, std::size_t index, std::uint64_t byte_count,
          bool sent_by_rank, bool correctness_pass)
      : call(call_name),
        phase(plan),
        op_index(index),
        bytes(byte_count),
        alltoall(sent_by_rank),
        verifying(correctness_pass) {}
  std::string describe() const override {
    return fmt::format("{} of {} at {} tokens, op {} of {} ({} bytes{}{})", call, to_string(phase->phase),
                       phase->tokens, op_index, phase->ops.size(), bytes,
                       alltoall ? " sent by this rank" : "", verifying ? ", correctness pass" : "");
  }
  const char* call;
  const PhasePlan* phase;
  std::size_t op_index;
  std::uint64_t bytes;
  bool alltoall, verifying;
};

// Touches every page so that first-use page faults do not land in a timed region.
void allocate_touched(std::vector<std::byte>& buffer, std::size_t bytes) {
  buffer.assign(bytes, std::byte{0});
}

}  // namespace

MpiTransport::MpiTransport(const RunConfig& config, const RankContext& context)
    : context_(context), in_place_(config.sweep.in_place) {
  int level = MPI_THREAD_SINGLE;
  K25_MPI_CHECK(MPI_Query_thread(&level));
  // Test-only switch: the path taken without MPI_THREAD_MULTIPLE, on a library that has it.
  const char* waits = std::getenv("K25_HOST_WAITS");
  const bool polled = waits != nullptr && std::string(waits) == "polled";
  if (level == MPI_THREAD_MULTIPLE && !polled)
    watchdog_ = std::make_unique<WaitWatchdog>(
        context.collective_timeout_s(),
        [&context](const std::string& op) { end_job_after_timeout(context, op); });
}

std::string MpiTransport::caveat(int ranks) const {
  (void)ranks;
  if (watchdog_) return {};
  return "the MPI library does not provide MPI_THREAD_MULTIPLE, so the host transport ran MPI_Iallreduce and "
         "MPI_Ialltoallv polled with MPI_Test (bounded waits without a watchdog thread): their algorithms "
         "may "
         "differ from the blocking calls' and so may the figures";
}

std::string MpiTransport::clock_description() const {
  int is_global = 0, flag = 0;
  int* value = nullptr;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &value, &flag);
  if (flag && value != nullptr) is_global = *value;
  return fmt::format("MPI_Wtime on each rank (resolution {:.3g} us{})", MPI_Wtick() * 1e6,
                     is_global ? ", global" : ", per-rank, not synchronized");
}

void MpiTransport::allocate(const BufferSizes& sizes) {
  allocate_touched(reduce_input_, sizes.allreduce_bytes);
  allocate_touched(reduce_output_, in_place_ ? 0 : sizes.allreduce_bytes);
  allocate_touched(alltoall_send_, sizes.alltoall_send_bytes);
  allocate_touched(alltoall_recv_, sizes.alltoall_recv_bytes);
}

MpiTransport::PreparedPhase& MpiTransport::prepared(const PhasePlan& phase) {
  auto& slot = prepared_[static_cast<std::size_t>(phase.phase)];
  if (slot.tokens != phase.tokens)
    throw RuntimeFault(
        fmt::format("{} phase at {} tokens was not prepared", to_string(phase.phase), phase.tokens));
  return slot;
}

void MpiTransport::prepare(const PhasePlan& phase) {
  auto& slot = prepared_[static_cast<std::size_t>(phase.phase)];
  slot = PreparedPhase{phase.tokens, {}};
  if (phase.phase == Phase::allreduce) {
    if (phase.max_send_bytes_per_rank() > reduce_input_.size())
      throw RuntimeFault("AllReduce buffer smaller than the plan needs");
    return;
  }
  const int ranks = context_.size();
  const int me = context_.rank();
  for (const auto& matrix : phase.matrices) {
    AlltoallCounts counts;
    counts.send_counts.resize(static_cast<std::size_t>(ranks));
    counts.send_displs.resize(static_cast<std::size_t>(ranks));
    counts.recv_counts.resize(static_cast<std::size_t>(ranks));
    counts.recv_displs.resize(static_cast<std::size_t>(ranks));
    std::uint64_t send_offset = 0, recv_offset = 0;
    for (int peer = 0; peer < ranks; ++peer) {
      const auto p = static_cast<std::size_t>(peer);
      counts.send_counts[p] = to_int_count(matrix.at(me, peer), "an All-to-All block");
      counts.recv_counts[p] = to_int_count(matrix.at(peer, me), "an All-to-All block");
      counts.send_displs[p] = to_int_count(send_offset, "an All-to-All displacement");
      counts.recv_displs[p] = to_int_count(recv_offset, "an All-to-All displacement");
      send_offset += matrix.at(me, peer);
      recv_offset += matrix.at(peer, me);
    }
    if (send_offset > alltoall_send_.size() || recv_offset > alltoall_recv_.size())
      throw RuntimeFault("All-to-All buffers smaller than the plan needs");
    counts.send_total = send_offset;
    slot.ops.push_back(std::move(counts));
  }
}

void MpiTransport::run_allreduce(const PhasePlan& phase, std::size_t op_index, bool verifying) {
  const std::size_t bytes = phase.ops[op_index].bytes;
  const bool bf16 = phase.dtype == Dtype::bf16;
  const int count = to_int_count(bytes / dtype_bytes(phase.dtype), "an AllReduce");
  const MPI_Datatype type = bf16 ? MPI_UINT16_T : MPI_FLOAT;
  const MPI_Op op = bf16 ? bf16_sum_.get() : MPI_SUM;
  const void* send = in_place_ ? MPI_IN_PLACE : reduce_input_.data();
  void* receive = in_place_ ? reduce_input_.data() : reduce_output_.data();
  if (watchdog_) {
    const OpPoint point{"MPI_Allreduce", &phase, op_index, bytes, false, verifying};
    const ArmedWait armed(*watchdog_, point);
    K25_MPI_CHECK(MPI_Allreduce(send, receive, count, type, op, context_.world()));
    return;
  }
  const OpPoint point{"MPI_Iallreduce", &phase, op_index, bytes, false, verifying};
  MPI_Request request = MPI_REQUEST_NULL;
  K25_MPI_CHECK(MPI_Iallreduce(send, receive, count, type, op, context_.world(), &request));
  wait_bounded(request, context_, [&] { return point.describe(); });
}

void MpiTransport::run_alltoall(const PhasePlan& phase, std::size_t op_index, bool verifying) {
  const auto& counts = prepared(phase).ops[static_cast<std::size_t>(phase.ops[op_index].matrix_index)];
  if (watchdog_) {
    const OpPoint point{"MPI_Alltoallv", &phase, op_index, counts.send_total, true, verifying};
    const ArmedWait armed(*watchdog_, point);
    K25_MPI_CHECK(MPI_Alltoallv(alltoall_send_.data(), counts.send_counts.data(), counts.send_displs.data(),
                                MPI_BYTE, alltoall_recv_.data(), counts.recv_counts.data(),
                                counts.recv_displs.data(), MPI_BYTE, context_.world()));
    return;
  }
  const OpPoint point{"MPI_Ialltoallv", &phase, op_index, counts.send_total, true, verifying};
  MPI_Request request = MPI_REQUEST_NULL;
  K25_MPI_CHECK(MPI_Ialltoallv(alltoall_send_.data(), counts.send_counts.data(), counts.send_displs.data(),
                               MPI_BYTE, alltoall_recv_.data(), counts.recv_counts.data(),
                               counts.recv_displs.data(), MPI_BYTE, context_.world(), &request));
  wait_bounded(request, context_, [&] { return point.describe(); });
}

void MpiTransport::run_op(const PhasePlan& phase, std::size_t op_index, bool verifying) {
  if (phase.phase == Phase::allreduce) {
    run_allreduce(phase, op_index, verifying);
  } else {
    run_alltoall(phase, op_index, verifying);
  }
}

void MpiTransport::launch(const PhasePlan& phase, std::size_t op_index) {
  run_op(phase, op_index, false);
}

int MpiTransport::mark() {
  marks_.push_back(MPI_Wtime());
  return static_cast<int>(marks_.size()) - 1;
}

double MpiTransport::elapsed_us(int from_slot, int to_slot) {
  return (marks_.at(static_cast<std::size_t>(to_slot)) - marks_.at(static_cast<std::size_t>(from_slot))) *
         1e6;
}

std::uint64_t MpiTransport::verify(const PhasePlan& phase, std::size_t op_index) {
  const CommOp& op = phase.ops[op_index];
  const int me = context_.rank();
  const int ranks = context_.size();
  std::uint64_t wrong = 0;
  if (phase.phase == Phase::allreduce) {
    const std::size_t count = op.bytes / dtype_bytes(phase.dtype);
    const bool bf16 = phase.dtype == Dtype::bf16;
    for (std::size_t i = 0; i < count; ++i) {
      const auto value = static_cast<float>(check::allreduce_input(me, i));
      if (bf16) {
        const std::uint16_t bits = check::float_to_bf16(value);
        std::memcpy(reduce_input_.data() + i * 2, &bits, 2);
      } else {
        std::memcpy(reduce_input_.data() + i * 4, &value, 4);
      }
    }
    if (!in_place_) std::memset(reduce_output_.data(), 0xFF, op.bytes);
    run_op(phase, op_index, true);
    const std::byte* result = in_place_ ? reduce_input_.data() : reduce_output_.data();
    for (std::size_t i = 0; i < count; ++i) {
      float got = 0;
      if (bf16) {
        std::uint16_t bits = 0;
        std::memcpy(&bits, result + i * 2, 2);
        got = check::bf16_to_float(bits);
      } else {
        std::memcpy(&got, result + i * 4, 4);
      }
      if (got != static_cast<float>(check::allreduce_expected(ranks, i))) ++wrong;
    }
    return wrong;
  }
  const auto& counts = prepared(phase).ops[static_cast<std::size_t>(op.matrix_index)];
  for (int peer = 0; peer < ranks; ++peer) {
    const auto p = static_cast<std::size_t>(peer);
    auto* block = reinterpret_cast<std::uint8_t*>(alltoall_send_.data()) + counts.send_displs[p];
    for (int j = 0; j < counts.send_counts[p]; ++j)
      block[j] = check::alltoall_byte(me, peer, static_cast<std::uint64_t>(j));
  }
  std::memset(alltoall_recv_.data(), 0, alltoall_recv_.size());
  run_op(phase, op_index, true);
  for (int peer = 0; peer < ranks; ++peer) {
    const auto p = static_cast<std::size_t>(peer);
    const auto* block = reinterpret_cast<const std::uint8_t*>(alltoall_recv_.data()) + counts.recv_displs[p];
    for (int j = 0; j < counts.recv_counts[p]; ++j)
      if (block[j] != check::alltoall_byte(peer, me, static_cast<std::uint64_t>(j))) ++wrong;
  }
  return wrong;
}

}  // namespace k25
