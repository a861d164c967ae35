// Percentiles, bus bandwidth factors (nccl-tests' definitions) and the bf16 check arithmetic.
#include <catch2/catch.hpp>

#include "analysis/bandwidth.hpp"
#include "common/stats.hpp"
#include "transport/check_pattern.hpp"

using namespace k25;

TEST_CASE("summarize gives min, percentiles, max and mean", "[stats]") {
  std::vector<double> samples;
  for (int i = 100; i >= 1; --i) samples.push_back(i);
  const Stats s = summarize(samples);
  CHECK(s.min == 1);
  CHECK(s.max == 100);
  CHECK(s.mean == Approx(50.5));
  CHECK(s.p50 == Approx(50.5));
  CHECK(s.p90 == Approx(90.1));
  CHECK(s.p99 == Approx(99.01));
}

TEST_CASE("summarize of one sample and of none", "[stats]") {
  const Stats one = summarize({7.0});
  CHECK(one.min == 7);
  CHECK(one.p50 == 7);
  CHECK(one.p99 == 7);
  CHECK(one.mean == 7);
  CHECK(summarize({}) == Stats{});
}

TEST_CASE("bus bandwidth factors as nccl-tests defines them", "[bandwidth]") {
  CHECK(busbw_factor(CollectiveKind::allreduce, 8) == Approx(1.75));
  CHECK(busbw_factor(CollectiveKind::allreduce, 2) == Approx(1.0));
  CHECK(busbw_factor(CollectiveKind::allreduce, 1) == Approx(0.0));
  CHECK(busbw_factor(CollectiveKind::alltoallv, 8) == Approx(0.875));
  CHECK(busbw_factor(CollectiveKind::alltoallv, 4) == Approx(0.75));
  CHECK(busbw_factor(CollectiveKind::allgather, 8) == Approx(0.875));
  CHECK(busbw_factor(CollectiveKind::reducescatter, 4) == Approx(0.75));
  CHECK(busbw_factor(CollectiveKind::allgather, 1) == Approx(0.0));
}

TEST_CASE("algbw is bytes per rank over time, in 1e9 B/s", "[bandwidth]") {
  CHECK(algbw_gbps(14336, 55.8) == Approx(0.256918).epsilon(1e-5));
  CHECK(algbw_gbps(3670016, 100) == Approx(36.70016));
  CHECK(algbw_gbps(1000, 0) == 0);
}

TEST_CASE("bf16 conversions round to nearest even and small integers are exact", "[check]") {
  for (int i = -256; i <= 256; ++i)
    CHECK(check::bf16_to_float(check::float_to_bf16(static_cast<float>(i))) == i);
  CHECK(check::bf16_to_float(check::float_to_bf16(257.0f)) == 256.0f);  // tie -> even
  CHECK(check::bf16_to_float(check::float_to_bf16(259.0f)) == 260.0f);
}

TEST_CASE("AllReduce check values sum to the expected totals", "[check]") {
  for (int ranks : {1, 2, 3, 4, 7, 8, 64, 128})
    for (std::uint64_t i : {0ull, 1ull, 2ull, 12345ull}) {
      int sum = 0;
      for (int r = 0; r < ranks; ++r) sum += check::allreduce_input(r, i);
      CHECK(sum == check::allreduce_expected(ranks, i));
      CHECK(sum <= 256);  // exact in bf16
    }
}
