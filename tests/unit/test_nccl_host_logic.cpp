// Host-side logic of the nccl transport that needs no GPU, run in every build (no CUDA headers): the
// --inject-hang parser and All-to-All layouts/maps.
#include <catch2/catch.hpp>

#include "common/error.hpp"
#include "transport/nccl/alltoall_layout.hpp"
#include "transport/nccl/hang_injection.hpp"

TEST_CASE("the --inject-hang parser reads PHASE:TOKENS:OP[:RANK]", "[nccl]") {
  CHECK_FALSE(k25::nccl::parse_hang_spec(""));
  const auto spec = k25::nccl::parse_hang_spec("combine:16:3");
  REQUIRE(spec);
  CHECK(spec->phase == k25::Phase::combine);
  CHECK(spec->tokens == 16);
  CHECK(spec->op == 3);
  CHECK(spec->rank == -1);
  const auto ranked = k25::nccl::parse_hang_spec("allreduce:1:0:2");
  REQUIRE(ranked);
  CHECK(ranked->rank == 2);
  for (const char* bad : {"allreduce", "allreduce:1", "gather:1:0", "allreduce:0:1", "allreduce:x:1",
                          "allreduce:1:-1", "allreduce:1:2:3:4", "allreduce:1:2:"})
    CHECK_THROWS_AS(k25::nccl::parse_hang_spec(bad), k25::UsageError);
}

TEST_CASE("peer layout: counts and displacements from the byte matrix", "[nccl]") {
  k25::ByteMatrix m(3);
  m.at(0, 0) = 10;
  m.at(0, 1) = 0;
  m.at(0, 2) = 30;
  m.at(1, 0) = 5;
  m.at(2, 0) = 7;
  const auto layout = k25::nccl::peer_layout(m, 0);
  CHECK(layout.send_bytes == std::vector<std::size_t>{10, 0, 30});
  CHECK(layout.send_offset == std::vector<std::size_t>{0, 10, 10});
  CHECK(layout.send_total == 40);
  CHECK(layout.recv_bytes == std::vector<std::size_t>{10, 5, 7});
  CHECK(layout.recv_offset == std::vector<std::size_t>{0, 10, 15});
  CHECK(layout.recv_total == 22);
}

TEST_CASE("permute maps: copy i carries token i mod tokens, and the CSR inverts it", "[nccl]") {
  const auto rows = k25::nccl::dispatch_rows_of_copies(7, 3);
  CHECK(rows == std::vector<std::int32_t>{0, 1, 2, 0, 1, 2, 0});
  const auto csr = k25::nccl::combine_copies_of_tokens(7, 3);
  CHECK(csr.offsets == std::vector<std::int32_t>{0, 3, 5, 7});
  CHECK(csr.index == std::vector<std::int32_t>{0, 3, 6, 1, 4, 2, 5});
  const auto few = k25::nccl::combine_copies_of_tokens(2, 4);  // tokens without copies get empty ranges
  CHECK(few.offsets == std::vector<std::int32_t>{0, 1, 2, 2, 2});
}
