// Host-memory collectives (bf16 sums through a user-defined op, fp32 natively; AllGather and All-to-Allv move
// bytes) with precomputed counts, the local row gather and segment sum around an op, and the correctness
// pass. Each wait is bounded by the collective timeout (a watchdog thread around the blocking call, or a
// polled non-blocking one).
#include "transport/mpi_transport.hpp"

#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "common/bounded_wait.hpp"
#include "common/error.hpp"
#include "transport/add_rmsnorm.hpp"
#include "transport/check_pattern.hpp"
#include "transport/host_burst_check.hpp"
#include "transport/host_busy_wait.hpp"
#include "transport/host_elements.hpp"
#include "transport/op_wait_point.hpp"

namespace k25 {
namespace {

int to_int_count(std::uint64_t count, const char* what) {
  if (count > static_cast<std::uint64_t>(INT_MAX))
    throw UsageError(
        fmt::format("{} of {} elements exceeds MPI's int count limit on the host transport", what, count));
  return static_cast<int>(count);
}

// Touches every page so that first-use page faults do not land in a timed region.
void allocate_touched(std::vector<std::byte>& buffer, std::size_t bytes) {
  buffer.assign(bytes, std::byte{0});
}

}  // namespace

MpiTransport::MpiTransport(const TransportOptions& options, const RankContext& context)
    : context_(context), options_(options) {
  int level = MPI_THREAD_SINGLE;
  K25_MPI_CHECK(MPI_Query_thread(&level));
  // Test-only switch: the path taken without MPI_THREAD_MULTIPLE, on a library that has it.
  const char* waits = std::getenv("K25_HOST_WAITS");
  const bool polled = waits != nullptr && std::string(waits) == "polled";
  if (level == MPI_THREAD_MULTIPLE && !polled) watchdog_ = make_rank_watchdog(context);
}

std::string MpiTransport::caveat(int ranks) const {
  (void)ranks;
  if (watchdog_) return {};
  return "the MPI library does not provide MPI_THREAD_MULTIPLE, so the host transport ran MPI_Iallreduce, MPI_Iallgather, MPI_Ireduce_scatter_block and MPI_Ialltoallv polled with MPI_Test (bounded waits without a watchdog thread): their algorithms may differ from the blocking calls' and so may the figures";
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
  allocate_touched(send_, sizes.send_bytes);
  allocate_touched(recv_, sizes.recv_bytes);
  allocate_touched(rows_, sizes.rows_bytes);
  allocate_touched(residual_, sizes.epilogue_bytes);
  allocate_touched(norm_out_, sizes.epilogue_bytes);
  allocate_touched(weight_, sizes.epilogue_row_bytes);
}

const MpiTransport::PreparedBurst& MpiTransport::prepared(BurstId burst) const {
  if (burst >= bursts_.size()) throw RuntimeFault(fmt::format("burst {} was not prepared", burst));
  return bursts_[burst];
}

BurstId MpiTransport::prepare(const OpBurst& burst) {
  const int ranks = context_.size();
  PreparedBurst out{burst, {}};
  for (std::size_t i = 0; i < burst.ops.size(); ++i) {
    const CollectiveOp& op = burst.ops[i];
    if (kind_info(op.kind).reduces && op.dtype != Dtype::bf16 && op.dtype != Dtype::fp32)
      throw UsageError(fmt::format("{}: the host transport sums bf16 or fp32, not {}", op_words(burst, i),
                                   to_string(op.dtype)));
    if (op.send_buffer_bytes(ranks) > send_.size() || op.recv_buffer_bytes(ranks) > recv_.size())
      throw RuntimeFault(fmt::format("{} needs {} / {} bytes to send / receive, {} / {} allocated",
                                     op_words(burst, i), op.send_buffer_bytes(ranks),
                                     op.recv_buffer_bytes(ranks), send_.size(), recv_.size()));
    PreparedOp prepared;
    if (op.kind == CollectiveKind::alltoallv) {
      if (op.send_bytes.size() != static_cast<std::size_t>(ranks) ||
          op.recv_bytes.size() != static_cast<std::size_t>(ranks))
        throw RuntimeFault(fmt::format("{} has per-peer counts for {} ranks in a run of {}",
                                       op_words(burst, i), op.send_bytes.size(), ranks));
      const PeerLayout layout = peer_layout(op);
      for (std::size_t p = 0; p < layout.send_bytes.size(); ++p) {
        prepared.send_counts.push_back(to_int_count(layout.send_bytes[p], "an All-to-All block"));
        prepared.recv_counts.push_back(to_int_count(layout.recv_bytes[p], "an All-to-All block"));
        prepared.send_displs.push_back(to_int_count(layout.send_offset[p], "an All-to-All displacement"));
        prepared.recv_displs.push_back(to_int_count(layout.recv_offset[p], "an All-to-All displacement"));
      }
    } else if (op.kind == CollectiveKind::allgather) {
      prepared.count = to_int_count(op.count * dtype_bytes(op.dtype), "an AllGather");  // moved as bytes
    } else {
      prepared.count = to_int_count(op.count, "a reduction");
    }
    out.ops.push_back(std::move(prepared));
  }
  bursts_.push_back(std::move(out));
  return bursts_.size() - 1;
}

std::byte* MpiTransport::input(const CollectiveOp& op) {
  if (options_.in_place && op.kind == CollectiveKind::allgather)
    return recv_.data() + static_cast<std::size_t>(context_.rank()) * op.count * dtype_bytes(op.dtype);
  return send_.data();
}

std::byte* MpiTransport::result(const CollectiveOp& op) {
  const bool in_place = options_.in_place && op.kind != CollectiveKind::alltoallv;
  if (in_place && op.kind != CollectiveKind::allgather) return send_.data();
  return recv_.data();
}

void MpiTransport::run_collective(const PreparedBurst& burst, std::size_t op_index, bool verifying) {
  const CollectiveOp& op = burst.burst.ops[op_index];
  const PreparedOp& args = burst.ops[op_index];
  const MPI_Comm world = context_.world();
  const bool reduce_bf16 = op.dtype == Dtype::bf16;
  const MPI_Datatype type = reduce_bf16 ? MPI_UINT16_T : MPI_FLOAT;
  const MPI_Op sum = reduce_bf16 ? bf16_sum_.get() : MPI_SUM;
  const bool in_place = options_.in_place;
  const void* send = in_place ? MPI_IN_PLACE : static_cast<const void*>(input(op));
  void* receive = result(op);
  const std::size_t sent = op.send_buffer_bytes(context_.size());
  MPI_Request request = MPI_REQUEST_NULL;
  // One launch per kind: the blocking call armed on the watchdog, or the non-blocking one polled.
  const auto run = [&](const char* blocking_name, const char* started_name, auto&& blocking, auto&& started) {
    if (watchdog_) {
      const OpWaitPoint point{blocking_name, &burst.burst, op_index, sent, verifying};
      const ArmedWait armed(*watchdog_, point);
      K25_MPI_CHECK(blocking());
      return;
    }
    const OpWaitPoint point{started_name, &burst.burst, op_index, sent, verifying};
    K25_MPI_CHECK(started());
    wait_bounded(request, context_, [&] { return point.describe(); });
  };
  switch (op.kind) {
    case CollectiveKind::allreduce:
      run(
          "MPI_Allreduce", "MPI_Iallreduce",
          [&] { return MPI_Allreduce(send, receive, args.count, type, sum, world); },
          [&] { return MPI_Iallreduce(send, receive, args.count, type, sum, world, &request); });
      return;
    case CollectiveKind::allgather: {
      const void* part = in_place ? MPI_IN_PLACE : static_cast<const void*>(input(op));
      run(
          "MPI_Allgather", "MPI_Iallgather",
          [&] { return MPI_Allgather(part, args.count, MPI_BYTE, receive, args.count, MPI_BYTE, world); },
          [&] {
            return MPI_Iallgather(part, args.count, MPI_BYTE, receive, args.count, MPI_BYTE, world, &request);
          });
      return;
    }
    case CollectiveKind::reducescatter:
      run(
          "MPI_Reduce_scatter_block", "MPI_Ireduce_scatter_block",
          [&] { return MPI_Reduce_scatter_block(send, receive, args.count, type, sum, world); },
          [&] { return MPI_Ireduce_scatter_block(send, receive, args.count, type, sum, world, &request); });
      return;
    case CollectiveKind::alltoallv:
      run(
          "MPI_Alltoallv", "MPI_Ialltoallv",
          [&] {
            return MPI_Alltoallv(send_.data(), args.send_counts.data(), args.send_displs.data(), MPI_BYTE,
                                 recv_.data(), args.recv_counts.data(), args.recv_displs.data(), MPI_BYTE,
                                 world);
          },
          [&] {
            return MPI_Ialltoallv(send_.data(), args.send_counts.data(), args.send_displs.data(), MPI_BYTE,
                                  recv_.data(), args.recv_counts.data(), args.recv_displs.data(), MPI_BYTE,
                                  world, &request);
          });
      return;
  }
}

// Test only (--inject-hang): this rank stops before the op. Its peers' waits time out and end the job; should
// they not (one rank), its own watchdog does.
void MpiTransport::stall(const PreparedBurst& burst, std::size_t op_index) {
  const OpWaitPoint point{"the hang injected by --inject-hang ahead", &burst.burst, op_index};
  std::optional<ArmedWait> armed;
  if (watchdog_) armed.emplace(*watchdog_, point);
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::duration<double>(context_.collective_timeout_s() + 120.0);
  while (std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  throw RuntimeFault(fmt::format("{} did not finish (a hang was injected there by --inject-hang)",
                                 op_words(burst.burst, op_index)));
}

void MpiTransport::run_op(const PreparedBurst& burst, std::size_t op_index, bool verifying) {
  const CollectiveOp& op = burst.burst.ops[op_index];
  if (op.stall_before) stall(burst, op_index);
  if (op.gather_before && !verifying) {
    const RowGather& gather = *op.gather_before;
    for (std::size_t i = 0; i < gather.rows.size(); ++i)
      std::memcpy(send_.data() + i * gather.row_bytes,
                  rows_.data() + static_cast<std::size_t>(gather.rows[i]) * gather.row_bytes,
                  gather.row_bytes);
  }
  run_collective(burst, op_index, verifying);
  run_epilogue(op);
  if (op.sum_after && !verifying) {
    const SegmentSum& segments = *op.sum_after;
    for (std::size_t t = 0; t + 1 < segments.offsets.size(); ++t)
      for (std::size_t e = 0; e < segments.row_elements; ++e) {
        float total = 0;
        for (auto c = segments.offsets[t]; c < segments.offsets[t + 1]; ++c)
          total += load_element(
              recv_.data(),
              static_cast<std::size_t>(segments.index[static_cast<std::size_t>(c)]) * segments.row_elements +
                  e,
              segments.dtype);
        store_element(rows_.data(), t * segments.row_elements + e, segments.dtype, total);
      }
  }
}

void MpiTransport::run_epilogue(const CollectiveOp& op) {
  if (op.epilogue_rows == 0) return;
  add_rmsnorm_rows(result(op), residual_.data(), weight_.data(), norm_out_.data(), 0, op.epilogue_rows,
                   op.epilogue_row_elements(), op.dtype);
}

void MpiTransport::launch(BurstId burst, std::size_t op_index) {
  run_op(prepared(burst), op_index, false);
}

void MpiTransport::launch_gap(BurstId burst, std::size_t op_index) {
  host_busy_wait_us(prepared(burst).burst.ops[op_index].busy_before_us);
}

// Op k of the burst takes the check input shifted by k and is checked before op k + 1 runs (MPI_Allreduce is
// blocking, so the ops are consecutive as they are in a timed trial).
std::uint64_t MpiTransport::verify_burst(BurstId id) {
  const PreparedBurst& burst = prepared(id);
  if (burst.burst.ops.empty()) return 0;
  const CollectiveOp& first = burst.burst.ops.front();
  const HostAllreduceBuffers buffers{
      input(first),    result(first),    options_.in_place ? nullptr : recv_.data(),
      recv_.size(),    residual_.data(), weight_.data(),
      norm_out_.data()};
  return check_allreduce_burst(burst.burst, context_.rank(), context_.size(), buffers,
                               [&](std::size_t k) { run_op(burst, k, true); });
}

int MpiTransport::mark() {
  marks_.push_back(MPI_Wtime());
  return static_cast<int>(marks_.size()) - 1;
}

double MpiTransport::elapsed_us(int from_slot, int to_slot) {
  return (marks_.at(static_cast<std::size_t>(to_slot)) - marks_.at(static_cast<std::size_t>(from_slot))) *
         1e6;
}

// Fills the op's input with check_pattern.hpp's data, runs the op alone (no row gather or segment sum: they
// would overwrite the checked data), and counts the result's elements that differ from the expected ones.
std::uint64_t MpiTransport::verify(BurstId id, std::size_t op_index) {
  const PreparedBurst& burst = prepared(id);
  const CollectiveOp& op = burst.burst.ops[op_index];
  const PreparedOp& args = burst.ops[op_index];
  const int me = context_.rank();
  const int ranks = context_.size();
  std::uint64_t wrong = 0;
  switch (op.kind) {
    case CollectiveKind::allreduce:
    case CollectiveKind::reducescatter: {
      const std::size_t inputs = kind_info(op.kind).send_elements(op.count, ranks);
      for (std::size_t i = 0; i < inputs; ++i)
        store_element(input(op), i, op.dtype, static_cast<float>(check::allreduce_input(me, i)));
      if (!options_.in_place) std::memset(recv_.data(), 0xFF, recv_.size());
      run_op(burst, op_index, true);
      // ReduceScatter: this rank's part of the result is elements [rank x count, (rank + 1) x count) of the
      // sum.
      const std::size_t first =
          op.kind == CollectiveKind::reducescatter ? static_cast<std::size_t>(me) * op.count : 0;
      for (std::size_t i = 0; i < op.count; ++i)
        if (load_element(result(op), i, op.dtype) !=
            static_cast<float>(check::allreduce_expected(ranks, first + i)))
          ++wrong;
      return wrong;
    }
    case CollectiveKind::allgather: {
      const auto bytes = static_cast<std::size_t>(args.count);
      auto* mine = reinterpret_cast<std::uint8_t*>(input(op));
      // In place too: this rank's part (the input, inside the result) is filled after, so a gather that did
      // nothing leaves the other parts zero and is counted.
      std::memset(recv_.data(), 0, recv_.size());
      for (std::size_t j = 0; j < bytes; ++j) mine[j] = check::allgather_byte(me, j);
      run_op(burst, op_index, true);
      const auto* all = reinterpret_cast<const std::uint8_t*>(result(op));
      for (int peer = 0; peer < ranks; ++peer)
        for (std::size_t j = 0; j < bytes; ++j)
          if (all[static_cast<std::size_t>(peer) * bytes + j] != check::allgather_byte(peer, j)) ++wrong;
      return wrong;
    }
    case CollectiveKind::alltoallv:
      break;
  }
  for (int peer = 0; peer < ranks; ++peer) {
    const auto p = static_cast<std::size_t>(peer);
    auto* block = reinterpret_cast<std::uint8_t*>(send_.data()) + args.send_displs[p];
    for (int j = 0; j < args.send_counts[p]; ++j)
      block[j] = check::alltoall_byte(me, peer, static_cast<std::uint64_t>(j));
  }
  std::memset(recv_.data(), 0, recv_.size());
  run_op(burst, op_index, true);
  for (int peer = 0; peer < ranks; ++peer) {
    const auto p = static_cast<std::size_t>(peer);
    const auto* block = reinterpret_cast<const std::uint8_t*>(recv_.data()) + args.recv_displs[p];
    for (int j = 0; j < args.recv_counts[p]; ++j)
      if (block[j] != check::alltoall_byte(peer, me, static_cast<std::uint64_t>(j))) ++wrong;
  }
  return wrong;
}

}  // namespace k25
