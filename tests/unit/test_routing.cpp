// Routing matrices: sums, determinism from the seed (what every rank relies on), visible Zipf skew, and the
// inverse-CDF search they sample with.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "plan/inverse_cdf.hpp"
#include "plan/routing.hpp"

using namespace k25;

namespace {
ModelSpec model(int experts, int top_k) {
  ModelSpec m;
  m.name = "t";
  m.hidden_size = 128;
  m.num_layers = 2;
  m.routed_experts = experts;
  m.experts_per_token = top_k;
  return m;
}
}  // namespace

TEST_CASE("per-expert copies: every row sums to tokens x top-k", "[routing]") {
  RoutingSpec r;
  r.copies = CopyGranularity::per_expert;
  const ByteMatrix m = route_copies(model(64, 8), r, 32, 8, 0);
  for (int src = 0; src < 8; ++src) CHECK(m.row_sum(src) == 32u * 8u);
  CHECK(m.total() == 8u * 32u * 8u);
  std::uint64_t columns = 0;
  for (int dst = 0; dst < 8; ++dst) columns += m.col_sum(dst);
  CHECK(columns == m.total());
}

TEST_CASE("top-k equal to the experts reaches every rank once per token", "[routing]") {
  RoutingSpec r;  // per_rank
  const ByteMatrix m = route_copies(model(8, 8), r, 5, 4, 0);
  for (int src = 0; src < 4; ++src)
    for (int dst = 0; dst < 4; ++dst) CHECK(m.at(src, dst) == 5u);
}

TEST_CASE("the same seed gives the same matrix, another seed or layer another", "[routing]") {
  RoutingSpec r;
  r.seed = 1234;
  const ByteMatrix a = route_copies(model(384, 8), r, 64, 8, 3);
  const ByteMatrix b = route_copies(model(384, 8), r, 64, 8, 3);
  CHECK(a == b);
  CHECK_FALSE(a == route_copies(model(384, 8), r, 64, 8, 4));
  r.seed = 1235;
  CHECK_FALSE(a == route_copies(model(384, 8), r, 64, 8, 3));
}

TEST_CASE("a pinned seed gives a pinned matrix (portable generator)", "[routing]") {
  // Values of this implementation's generator. A change here means binaries of two versions would plan
  // different traffic for the same seed: bump the report's schema or say so in the release notes.
  RoutingSpec r;
  r.seed = 42;
  r.copies = CopyGranularity::per_expert;
  const ByteMatrix small = route_copies(model(16, 2), r, 4, 2, 0);
  CHECK(small.at(0, 0) == 3u);
  CHECK(small.at(0, 1) == 5u);
  CHECK(small.at(1, 0) == 3u);
  CHECK(small.at(1, 1) == 5u);

  r.model = RoutingModel::zipf;
  r.zipf_s = 1.2;
  r.copies = CopyGranularity::per_rank;
  const ByteMatrix kimi_like = route_copies(model(384, 8), r, 16, 4, 5);
  const std::uint64_t expected[4][4] = {
      {16, 10, 16, 14}, {16, 11, 16, 15}, {16, 10, 16, 15}, {16, 10, 15, 16}};
  for (int src = 0; src < 4; ++src)
    for (int dst = 0; dst < 4; ++dst) CHECK(kimi_like.at(src, dst) == expected[src][dst]);
}

TEST_CASE("Zipf routing concentrates traffic on the ranks holding hot experts", "[routing]") {
  RoutingSpec uniform;
  uniform.copies = CopyGranularity::per_expert;
  RoutingSpec skewed = uniform;
  skewed.model = RoutingModel::zipf;
  skewed.zipf_s = 1.5;
  const auto spread = [](const ByteMatrix& m) {
    std::vector<std::uint64_t> received;
    for (int dst = 0; dst < m.ranks(); ++dst) received.push_back(m.col_sum(dst));
    const auto [lo, hi] = std::minmax_element(received.begin(), received.end());
    return static_cast<double>(*hi) / static_cast<double>(std::max<std::uint64_t>(*lo, 1));
  };
  const double even = spread(route_copies(model(256, 8), uniform, 256, 8, 0));
  const double skew = spread(route_copies(model(256, 8), skewed, 256, 8, 0));
  CHECK(even < 1.3);
  CHECK(skew > 1.5);
  CHECK(skew > even);
}

TEST_CASE("Zipf weights are a permutation of 1/(i+1)^s", "[routing]") {
  RoutingSpec r;
  r.model = RoutingModel::zipf;
  r.zipf_s = 1.0;
  std::vector<double> w = expert_weights(model(10, 2), r);
  std::sort(w.begin(), w.end(), std::greater<>());
  for (int i = 0; i < 10; ++i) CHECK(w[static_cast<std::size_t>(i)] == Approx(1.0 / (i + 1)));
}

TEST_CASE("the inverse CDF's guided search gives std::upper_bound's index everywhere", "[routing]") {
  // Reference: what routing used before the guide table (upper_bound, clamped to the last index).
  for (const double s : {0.0, 0.5, 1.0, 2.5, 8.0}) {
    std::vector<double> weights;
    for (int i = 0; i < 384; ++i) weights.push_back(1.0 / std::pow(i + 1.0, s));
    std::vector<double> cumulative(weights.size());
    std::partial_sum(weights.begin(), weights.end(), cumulative.begin());
    const auto reference = [&](double target) {
      const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), target);
      return static_cast<int>(std::min<std::ptrdiff_t>(it - cumulative.begin(), 383));
    };
    const InverseCdf inverse(weights);
    REQUIRE(inverse.total() == cumulative.back());
    std::vector<double> targets = {0.0, std::nextafter(cumulative.back(), 0.0)};
    for (const double c : cumulative) {  // on and either side of every step
      targets.push_back(c);
      targets.push_back(std::nextafter(c, 0.0));
      targets.push_back(std::nextafter(c, 1e300));
    }
    for (int b = 0; b <= 384; ++b) {  // on and either side of every bucket edge
      const double edge = b * cumulative.back() / 384.0;
      targets.push_back(edge);
      targets.push_back(std::nextafter(edge, 0.0));
      targets.push_back(std::nextafter(edge, 1e300));
    }
    for (int i = 0; i < 100000; ++i) targets.push_back(cumulative.back() * (i + 0.5) / 100000.0);
    int mismatches = 0;
    for (const double target : targets) {
      if (target < 0 || target >= cumulative.back()) continue;
      if (inverse.index_of(target) != reference(target)) ++mismatches;
    }
    INFO("zipf s = " << s);
    CHECK(mismatches == 0);
  }
}
