// The decode timing mode's plan: gap lengths per op (per-op, per-layer split, seeded skew) worked out by
// hand, deterministic per seed, and carried into the op descriptors.
#include <catch2/catch.hpp>

#include <set>

#include "plan/decode_gaps.hpp"
#include "plan/rank_ops.hpp"

using namespace k25;

namespace {

// The embedding AllReduce (layer -1), then two per layer for layers 0 and 1, then one named op of layer 1.
PhasePlan allreduce_phase() {
  PhasePlan phase{Phase::allreduce, 16, 4, Dtype::bf16, 0, {}, {}};
  phase.ops.push_back({Phase::allreduce, -1, 4096, -1, ""});
  for (int layer = 0; layer < 2; ++layer)
    for (int i = 0; i < 2; ++i) phase.ops.push_back({Phase::allreduce, layer, 4096, -1, ""});
  phase.ops.push_back({Phase::allreduce, 1, 4096, -1, "extra"});
  return phase;
}

}  // namespace

TEST_CASE("gaps: the per-op gap everywhere, a layer's compute split over that layer's ops",
          "[plan][decode]") {
  DecodeGapSpec spec;
  spec.gap_us = 5;
  spec.layer_gap_us = 60;
  const auto gaps = decode_gaps_us(allreduce_phase(), 2, spec);
  // layer 0 holds 2 ops (30 us each), layer 1 holds 3 (20 us each), the embedding none
  CHECK(gaps == std::vector<double>{5, 35, 35, 25, 25, 25});
  CHECK(configured_gaps_us(allreduce_phase(), spec) == 5 + 35 + 35 + 25 + 25 + 25);
  CHECK(decode_gaps_us(allreduce_phase(), 0, DecodeGapSpec{}) == std::vector<double>(6, 0.0));
}

TEST_CASE("gaps: the skew lies from 0 up to skew_us, the same for a seed, and differs by rank, op and seed",
          "[plan][decode]") {
  DecodeGapSpec spec;
  spec.gap_us = 100;
  spec.skew_us = 8;
  spec.seed = 7;
  const PhasePlan phase = allreduce_phase();
  const auto rank0 = decode_gaps_us(phase, 0, spec);
  const auto rank1 = decode_gaps_us(phase, 1, spec);
  CHECK(rank0 == decode_gaps_us(phase, 0, spec));  // deterministic
  CHECK(rank0 != rank1);
  std::set<double> distinct;
  for (const double gap : rank0) {
    CHECK(gap >= 100.0);
    CHECK(gap < 108.0);
    distinct.insert(gap);
  }
  CHECK(distinct.size() == rank0.size());  // one draw per op
  DecodeGapSpec other = spec;
  other.seed = 8;
  CHECK(decode_gaps_us(phase, 0, other) != rank0);
  // The configured gaps leave the skew out: they are the same on every rank.
  CHECK(configured_gaps_us(phase, spec) == 600.0);
  // Over many draws the skew spreads over the whole range.
  double low = 8, high = 0;
  for (std::size_t op = 0; op < 2000; ++op) {
    const double skew = decode_skew_us(spec, 3, Phase::dispatch, 1, op);
    low = std::min(low, skew);
    high = std::max(high, skew);
  }
  CHECK(low < 0.1);
  CHECK(high > 7.9);
  CHECK(decode_skew_us(DecodeGapSpec{}, 3, Phase::dispatch, 1, 0) == 0.0);
}

TEST_CASE("gaps become the ops' busy_before_us, a gap list of the wrong length is refused",
          "[plan][decode]") {
  const PhasePlan phase = allreduce_phase();
  RankOpOptions options;
  options.gaps_us = {1, 2, 3, 4, 5, 6};
  const OpBurst burst = burst_for_rank(phase, 0, options);
  REQUIRE(burst.ops.size() == 6);
  for (std::size_t i = 0; i < 6; ++i) CHECK(burst.ops[i].busy_before_us == static_cast<double>(i + 1));
  CHECK(burst.what == "allreduce at 16 tokens with decode gaps");
  CHECK(burst_for_rank(phase, 0, RankOpOptions{}).ops[3].busy_before_us == 0.0);
  options.gaps_us.pop_back();
  CHECK_THROWS_WITH(burst_for_rank(phase, 0, options), Catch::Contains("5 decode gaps for the 6 ops"));
}

TEST_CASE(
    "gaps from a capture: the captured gap before every op, each rank's arrival from its own distribution",
    "[plan][decode]") {
  DecodeGapSpec spec;
  spec.gap_us = 999;  // the captured shape replaces the configured gaps
  spec.skew_us = 999;
  CapturedShape one;
  one.kind = CollectiveKind::allreduce;
  one.batch = 1;
  one.gap_us = 40;
  one.rank_arrival_us = {Stats{0, 0, 0, 0, 0, 0}, Stats{10, 20, 30, 35, 40, 22}};
  CapturedShape sixteen = one;
  sixteen.batch = 16;
  sixteen.gap_us = 90;
  spec.captured = {one, sixteen};
  const PhasePlan phase = allreduce_phase();  // 16 tokens: the batch-16 shape
  REQUIRE(captured_shape_for(phase, spec) != nullptr);
  CHECK(captured_shape_for(phase, spec)->batch == 16);
  CHECK(decode_gaps_us(phase, 0, spec) == std::vector<double>(6, 90.0));  // rank 0 always arrived first
  for (const double gap : decode_gaps_us(phase, 1, spec)) {               // rank 1: 10 .. 40 us behind
    CHECK(gap >= 100.0);
    CHECK(gap <= 130.0);
  }
  CHECK(decode_gaps_us(phase, 3, spec) != decode_gaps_us(phase, 1, spec));      // rank 3 draws its own
  for (const double gap : decode_gaps_us(phase, 3, spec)) CHECK(gap >= 100.0);  // 3 mod 2: rank 1's arrivals
  CHECK(configured_gaps_us(phase, spec) == 6 * 90.0);
  // The quantiles joined by straight lines.
  const Stats arrival{10, 20, 30, 35, 40, 22};
  CHECK(stats_quantile(arrival, 0) == 10);
  CHECK(stats_quantile(arrival, 0.25) == 15);
  CHECK(stats_quantile(arrival, 0.5) == 20);
  CHECK(stats_quantile(arrival, 0.7) == Approx(25));
  CHECK(stats_quantile(arrival, 0.995) == Approx(37.5));
  // The key: the same for the same shapes whatever the seed; another figure, another key.
  DecodeGapSpec reseeded = spec;
  reseeded.seed = 9;
  CHECK(shape_key(reseeded) == shape_key(spec));
  reseeded.captured[0].rank_arrival_us[1].p90 = 31;
  CHECK(shape_key(reseeded) != shape_key(spec));
  CHECK_THAT(
      shape_key(spec),
      Catch::StartsWith(
          "captured: AllReduce batch 1 gap 40.0 us, 2 ranks' arrivals; AllReduce batch 16 gap 90.0 us, 2 ranks' arrivals (#"));
  CHECK(shape_key(DecodeGapSpec{}) == "gap 0 us + 0 us per layer, skew < 0 us, seed 1");
}
