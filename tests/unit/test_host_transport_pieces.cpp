// Unit tests of host-side pieces of the transports: the bf16 reduction (exact against the reference rounding,
// NaN kept quiet), the test-only --inject-delay parser, and how a watched op is named.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "common/error.hpp"
#include "transport/check_pattern.hpp"
#include "transport/delayed_arrival.hpp"
#include "transport/mpi_bf16_sum.hpp"
#include "transport/op_wait_point.hpp"

namespace {

std::uint16_t reference_sum(std::uint16_t a, std::uint16_t b) {
  return k25::check::float_to_bf16(k25::check::bf16_to_float(a) + k25::check::bf16_to_float(b));
}

bool is_quiet_nan(std::uint16_t bits) {
  return (bits & 0x7FC0u) == 0x7FC0u;
}

// Equal bits; or, where the sum is NaN, a quiet NaN (which operand's payload survives NaN + NaN is up to the
// hardware and the order the compiler chose, in IEEE 754 as in MPI).
bool same_sum(std::uint16_t got, std::uint16_t want) {
  return got == want || (is_quiet_nan(want) && is_quiet_nan(got));
}

}  // namespace

TEST_CASE("the vectorisable bf16 sum equals fp32 addition rounded to nearest even, for every bf16 value") {
  // Every bf16 bit pattern against a spread of partners: zeros, denormals, ordinary values, the largest
  // finite values, infinities and NaNs of both signs.
  const std::vector<std::uint16_t> partners = {0x0000, 0x8000, 0x0001, 0x807F, 0x3F80, 0xBF80,
                                               0x3F81, 0x4049, 0xC2F7, 0x7F7F, 0xFF7F, 0x7F80,
                                               0xFF80, 0x7FC0, 0x7F81, 0xFFFF};
  std::uint64_t mismatches = 0;
  for (std::uint32_t a = 0; a <= 0xFFFF; ++a)
    for (std::uint16_t b : partners)
      if (!same_sum(k25::bf16_add(static_cast<std::uint16_t>(a), b),
                    reference_sum(static_cast<std::uint16_t>(a), b)))
        ++mismatches;
  CHECK(mismatches == 0);
  CHECK(k25::bf16_add(0x7F81, 0x3F80) == 0x7FC1);  // a signalling NaN comes back quiet, payload kept
  CHECK(k25::bf16_add(0x7F7F, 0x7F7F) == 0x7F80);  // the largest finite value doubled rounds to infinity
  CHECK(k25::bf16_add(0x3F80, 0x3B80) == 0x3F80);  // 1 + 2^-8: a tie, rounds to even (1.0)
  CHECK(k25::bf16_add(0x3F81, 0x3B80) == 0x3F82);  // odd mantissa: the tie rounds up
}

TEST_CASE("the array form of the bf16 sum adds element by element, as MPI calls it") {
  std::vector<std::uint16_t> in(1031), inout(1031), expected(1031);
  for (std::size_t i = 0; i < in.size(); ++i) {
    in[i] = static_cast<std::uint16_t>(i * 40503u);
    inout[i] = static_cast<std::uint16_t>(i * 7919u + 3u);
    expected[i] = reference_sum(in[i], inout[i]);
  }
  k25::bf16_add_arrays(in.data(), inout.data(), static_cast<int>(in.size()));
  std::size_t differing = 0;
  for (std::size_t i = 0; i < in.size(); ++i) differing += same_sum(inout[i], expected[i]) ? 0 : 1;
  CHECK(differing == 0);
}

TEST_CASE("the test-only inject-delay value RANK:US parses, and bad values are usage errors") {
  CHECK_FALSE(k25::parse_delay_spec("").has_value());
  const auto spec = k25::parse_delay_spec("2:50000");
  REQUIRE(spec.has_value());
  CHECK(spec->rank == 2);
  CHECK(spec->microseconds == 50000.0);
  CHECK(k25::parse_delay_spec("0:0.5")->microseconds == 0.5);
  for (const char* bad : {"2", ":5", "x:5", "-1:5", "2:", "2:0", "2:-3", "2:abc", "2:5x", "2:20000000"})
    CHECK_THROWS_AS(k25::parse_delay_spec(bad), k25::UsageError);
}

TEST_CASE("a watched op is named by its call, burst, index, bytes and pass") {
  k25::OpBurst burst{"allreduce at 4 tokens", {}};
  burst.ops.resize(8);
  CHECK(k25::OpWaitPoint("MPI_Allreduce", &burst, 2, 2048).describe() ==
        "MPI_Allreduce of allreduce at 4 tokens, op 2 of 8 (2048 bytes)");
  CHECK(k25::OpWaitPoint("MPI_Allreduce", &burst, 2, 2048, true).describe() ==
        "MPI_Allreduce of allreduce at 4 tokens, op 2 of 8 (2048 bytes, correctness pass)");
  CHECK(k25::OpWaitPoint("the hang injected by --inject-hang ahead", &burst, 2).describe() ==
        "the hang injected by --inject-hang ahead of allreduce at 4 tokens, op 2 of 8");
  burst.ops[3].kind = k25::CollectiveKind::alltoallv;
  CHECK(k25::OpWaitPoint("MPI_Alltoallv", &burst, 3, 100).describe() ==
        "MPI_Alltoallv of allreduce at 4 tokens, op 3 of 8 (100 bytes sent by this rank)");
  CHECK(k25::OpWaitPoint("ncclCommFinalize at the end of the run").describe() ==
        "ncclCommFinalize at the end of the run");
}
