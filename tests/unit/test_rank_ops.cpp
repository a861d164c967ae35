// The op descriptors a rank gives its transport: counts, per-peer bytes, permutation maps, the injected
// stall, buffer sizes and peer layouts; the --inject-hang parser; the collective-kind table.
#include <catch2/catch.hpp>

#include "common/collective_kind.hpp"
#include "common/collective_kind_names.hpp"
#include "common/error.hpp"
#include "plan/hang_spec.hpp"
#include "plan/permute_maps.hpp"
#include "plan/rank_ops.hpp"
#include "transport/peer_layout.hpp"
#include "transport/transport.hpp"

using namespace k25;

namespace {

// Three ranks, two All-to-All ops; rank r sends (r + 1) x (peer + 1) copies of 8 bytes to each peer.
PhasePlan dispatch_phase() {
  PhasePlan phase{Phase::dispatch, 4, 3, Dtype::fp8, 8, {}, {}};
  phase.kind = CollectiveKind::alltoallv;
  for (int op = 0; op < 2; ++op) {
    ByteMatrix copies(3);
    for (int src = 0; src < 3; ++src)
      for (int dst = 0; dst < 3; ++dst)
        copies.at(src, dst) = static_cast<std::uint64_t>((src + 1) * (dst + 1) + op);
    phase.matrices.push_back(copies.scaled(8));
    phase.ops.push_back(
        {Phase::dispatch, 5 + op, static_cast<std::size_t>(phase.matrices.back().total()), op});
  }
  return phase;
}

}  // namespace

TEST_CASE("every collective kind has its entry, with nccl-tests' bus-bandwidth factor", "[plan][kinds]") {
  for (const auto& [kind, name] : EnumNames<CollectiveKind>::values) {
    CHECK(kind_info(kind).kind == kind);
    CHECK(std::string(to_string(kind)) == std::string(name));
  }
  CHECK(kind_info(CollectiveKind::allreduce).busbw_factor(8) == Approx(1.75));
  CHECK(kind_info(CollectiveKind::allgather).busbw_factor(8) == Approx(0.875));
  CHECK(kind_info(CollectiveKind::reducescatter).busbw_factor(4) == Approx(0.75));
  CHECK(kind_info(CollectiveKind::alltoallv).busbw_factor(2) == Approx(0.5));
  CHECK(kind_info(CollectiveKind::allgather).recv_elements(5, 4) == 20);
  CHECK(kind_info(CollectiveKind::reducescatter).send_elements(5, 4) == 20);
  CHECK(kind_info(CollectiveKind::reducescatter).recv_elements(5, 4) == 5);
}

TEST_CASE("an AllReduce phase becomes element counts, one per op, labelled by layer", "[plan][rank_ops]") {
  PhasePlan phase{Phase::allreduce, 2, 4, Dtype::bf16, 0, {}, {}};
  phase.ops = {{Phase::allreduce, -1, 28672, -1}, {Phase::allreduce, 0, 28672, -1}};
  const OpBurst burst = burst_for_rank(phase, 1, {});
  CHECK(burst.what == "allreduce at 2 tokens");
  REQUIRE(burst.ops.size() == 2);
  CHECK(burst.ops[0].kind == CollectiveKind::allreduce);
  CHECK(burst.ops[0].count == 14336);
  CHECK(burst.ops[0].label == "embedding");
  CHECK(burst.ops[1].label == "layer 0");
  CHECK(burst.ops[1].send_buffer_bytes(4) == 28672);
  CHECK_FALSE(burst.ops[1].stall_before);
  CHECK(op_words(burst, 1) == "allreduce at 2 tokens, op 1 of 2 (layer 0)");
  const BufferSizes sizes = largest_buffers({burst}, 4);
  CHECK(sizes == BufferSizes{28672, 28672, 0});
}

TEST_CASE("an All-to-All phase becomes this rank's row and column of each byte matrix", "[plan][rank_ops]") {
  const PhasePlan phase = dispatch_phase();
  const OpBurst rank1 = burst_for_rank(phase, 1, {});
  REQUIRE(rank1.ops.size() == 2);
  // rank 1 sends 2 x (dst + 1) + op copies of 8 bytes to dst; receives (src + 1) x 2 + op from src
  CHECK(rank1.ops[0].send_bytes == std::vector<std::size_t>{16, 32, 48});
  CHECK(rank1.ops[0].recv_bytes == std::vector<std::size_t>{16, 32, 48});
  CHECK(rank1.ops[1].send_bytes == std::vector<std::size_t>{24, 40, 56});
  CHECK_FALSE(rank1.ops[0].gather_before);
  const PeerLayout layout = peer_layout(rank1.ops[1]);
  CHECK(layout.send_offset == std::vector<std::size_t>{0, 24, 64});
  CHECK(layout.send_total == 120);
  const OpBurst rank2 = burst_for_rank(phase, 2, {});
  CHECK(rank2.ops[1].send_bytes == std::vector<std::size_t>{32, 56, 80});
  CHECK(rank2.ops[1].recv_bytes == std::vector<std::size_t>{32, 56, 80});  // column 2 of op 1: (src+1)*3+1
  // largest send: rank 2, op 1 (4 + 7 + 10 copies); largest receive: column 2 of op 1 (the same 21 copies)
  const BufferSizes sizes = largest_buffers({burst_for_rank(phase, 0, {}), rank1, rank2}, 3);
  CHECK(sizes.send_bytes == 168);
  CHECK(sizes.recv_bytes == 168);
}

TEST_CASE("with the permute, dispatch gathers token rows and combine sums the copies back",
          "[plan][rank_ops]") {
  const PhasePlan dispatch = dispatch_phase();
  const OpBurst packed = burst_for_rank(dispatch, 0, {true, std::nullopt});
  REQUIRE(packed.ops[0].gather_before);
  const RowGather& gather = *packed.ops[0].gather_before;
  CHECK(gather.row_bytes == 8);
  CHECK(gather.source_rows == 4);
  CHECK(gather.rows == std::vector<std::int32_t>{0, 1, 2, 3, 0, 1});  // 1 + 2 + 3 copies sent by rank 0
  PhasePlan combine = dispatch;
  combine.phase = Phase::combine;
  combine.dtype = Dtype::bf16;
  const OpBurst unpacked = burst_for_rank(combine, 0, {true, std::nullopt});
  REQUIRE(unpacked.ops[0].sum_after);
  const SegmentSum& sum = *unpacked.ops[0].sum_after;
  CHECK(sum.row_elements == 4);
  CHECK(sum.offsets == std::vector<std::int32_t>{0, 2, 4, 5, 6});  // 6 copies received over 4 tokens
  CHECK(largest_buffers({packed}, 3).rows_bytes == 32);
}

TEST_CASE("inject-hang: marks one op of one rank's burst", "[plan][rank_ops]") {
  const PhasePlan phase = dispatch_phase();
  const RankOpOptions on_rank_2{false, parse_hang_spec("dispatch:4:1:2")};
  CHECK(burst_for_rank(phase, 2, on_rank_2).ops[1].stall_before);
  CHECK_FALSE(burst_for_rank(phase, 2, on_rank_2).ops[0].stall_before);
  CHECK_FALSE(burst_for_rank(phase, 1, on_rank_2).ops[1].stall_before);
  const RankOpOptions everywhere{false, parse_hang_spec("dispatch:4:1")};
  CHECK(burst_for_rank(phase, 0, everywhere).ops[1].stall_before);
  const RankOpOptions other_tokens{false, parse_hang_spec("dispatch:8:1")};
  CHECK_FALSE(burst_for_rank(phase, 0, other_tokens).ops[1].stall_before);
}

TEST_CASE("inject-hang: parses PHASE:TOKENS:OP[:RANK]", "[plan][hang]") {
  CHECK_FALSE(parse_hang_spec(""));
  const auto spec = parse_hang_spec("combine:16:3");
  REQUIRE(spec);
  CHECK(spec->phase == Phase::combine);
  CHECK(spec->tokens == 16);
  CHECK(spec->op == 3);
  CHECK(spec->rank == -1);
  const auto ranked = parse_hang_spec("allreduce:1:0:2");
  REQUIRE(ranked);
  CHECK(ranked->rank == 2);
  for (const char* bad : {"allreduce", "allreduce:1", "gather:1:0", "allreduce:0:1", "allreduce:x:1",
                          "allreduce:1:-1", "allreduce:1:2:3:4", "allreduce:1:2:"})
    CHECK_THROWS_AS(parse_hang_spec(bad), UsageError);
}

TEST_CASE("permute maps: copy i carries token i mod tokens, and the CSR inverts it", "[plan][permute]") {
  const auto rows = dispatch_rows_of_copies(7, 3);
  CHECK(rows == std::vector<std::int32_t>{0, 1, 2, 0, 1, 2, 0});
  const auto csr = combine_copies_of_tokens(7, 3);
  CHECK(csr.offsets == std::vector<std::int32_t>{0, 3, 5, 7});
  CHECK(csr.index == std::vector<std::int32_t>{0, 3, 6, 1, 4, 2, 5});
  const auto few = combine_copies_of_tokens(2, 4);  // tokens without copies get empty ranges
  CHECK(few.offsets == std::vector<std::int32_t>{0, 1, 2, 2, 2});
}

TEST_CASE("every collective kind has its entry and the name NCCL and the traces give it, read back to it",
          "[collective-kind]") {
  for (const auto& [kind, name] : EnumNames<CollectiveKind>::values) {
    CHECK(kind_info(kind).kind == kind);
    CHECK(kind_of_recorded_name(recorded_name(kind)) == kind);
  }
  CHECK(recorded_name(CollectiveKind::allreduce) == "AllReduce");
  CHECK(recorded_name(CollectiveKind::alltoallv) == "AllToAll");
  CHECK(names_kind("ReduceScatter", CollectiveKind::reducescatter));
  CHECK_FALSE(kind_of_recorded_name("SendRecv"));
  CHECK_FALSE(kind_of_recorded_name("allreduce"));  // the recorded names only, as written
}

TEST_CASE("every recorded kind has one name, and one that holds another comes before it",
          "[collective-kind]") {
  const auto kinds = recorded_kinds();
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    CHECK(recorded_name_of_letters(kinds[i].letters) == kinds[i].name);
    for (std::size_t j = i + 1; j < kinds.size(); ++j) {
      INFO(kinds[i].letters << " before " << kinds[j].letters);
      CHECK(kinds[j].letters.find(kinds[i].letters) == std::string_view::npos);
    }
  }
  CHECK(recorded_name_of_letters("sendrecv") == "SendRecv");
  CHECK(recorded_name_of_letters("alltoallv") == "AllToAllv");
  CHECK(recorded_name_of_letters("allto") == "");
}
