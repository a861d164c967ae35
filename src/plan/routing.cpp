// Top-k expert selection per token by weighted sampling without replacement, reduced to a rank-to-rank copy
// matrix.
#include "plan/routing.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "plan/inverse_cdf.hpp"

namespace k25 {
namespace {

// splitmix64: small, fast, and identical everywhere.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  std::uint64_t below(std::uint64_t bound) { return next() % bound; }

 private:
  std::uint64_t state_;
};

std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  SplitMix64 mixer(seed ^ (a * 0x9E3779B97F4A7C15ull) ^ (b * 0xC2B2AE3D27D4EB4Full) ^
                   (c * 0x165667B19E3779F9ull));
  return mixer.next();
}

}  // namespace

std::vector<double> expert_weights(const ModelSpec& model, const RoutingSpec& routing) {
  const int experts = model.routed_experts;
  std::vector<double> weights(static_cast<std::size_t>(experts), 1.0);
  if (routing.model == RoutingModel::uniform) return weights;
  std::vector<int> position(static_cast<std::size_t>(experts));
  std::iota(position.begin(), position.end(), 0);
  SplitMix64 shuffle(mix_seed(routing.seed, 0xE1, 0, 0));
  for (int i = experts - 1; i > 0; --i)  // Fisher-Yates
    std::swap(position[static_cast<std::size_t>(i)],
              position[shuffle.below(static_cast<std::uint64_t>(i) + 1)]);
  for (int e = 0; e < experts; ++e)
    weights[static_cast<std::size_t>(e)] =
        1.0 / std::pow(position[static_cast<std::size_t>(e)] + 1.0, routing.zipf_s);
  return weights;
}

ByteMatrix route_copies(const ModelSpec& model, const RoutingSpec& routing, int tokens, int ranks,
                        int layer) {
  const int experts = model.routed_experts;
  const int top_k = model.experts_per_token;
  const int experts_per_rank = experts / ranks;
  const std::vector<double> weights = expert_weights(model, routing);
  const InverseCdf inverse_cdf(weights);

  ByteMatrix copies(ranks);
  std::vector<int> chosen;
  std::vector<char> taken(static_cast<std::size_t>(experts), 0);
  std::vector<char> rank_hit(static_cast<std::size_t>(ranks), 0);
  for (int src = 0; src < ranks; ++src) {
    SplitMix64 rng(mix_seed(routing.seed, static_cast<std::uint64_t>(tokens),
                            static_cast<std::uint64_t>(layer), static_cast<std::uint64_t>(src)));
    for (int token = 0; token < tokens; ++token) {
      chosen.clear();
      // Sampling without replacement: redraw duplicates (the same distribution as drawing among the remaining
      // experts); after a bounded number of redraws, draw exactly from the remaining weights.
      int redraws = 0;
      while (static_cast<int>(chosen.size()) < top_k) {
        int expert;
        if (redraws < 64) {
          expert = inverse_cdf.index_of(rng.uniform() * inverse_cdf.total());
          if (taken[static_cast<std::size_t>(expert)]) {
            ++redraws;
            continue;
          }
        } else {
          double remaining = 0;
          for (int e = 0; e < experts; ++e)
            remaining += taken[static_cast<std::size_t>(e)] ? 0.0 : weights[static_cast<std::size_t>(e)];
          double target = rng.uniform() * remaining;
          expert = -1;
          for (int e = 0; e < experts; ++e) {
            if (taken[static_cast<std::size_t>(e)]) continue;
            expert = e;
            target -= weights[static_cast<std::size_t>(e)];
            if (target < 0) break;
          }
        }
        taken[static_cast<std::size_t>(expert)] = 1;
        chosen.push_back(expert);
      }
      for (int expert : chosen) {
        taken[static_cast<std::size_t>(expert)] = 0;
        const int dst = expert / experts_per_rank;
        if (routing.copies == CopyGranularity::per_expert) {
          ++copies.at(src, dst);
        } else if (!rank_hit[static_cast<std::size_t>(dst)]) {
          rank_hit[static_cast<std::size_t>(dst)] = 1;
          ++copies.at(src, dst);
        }
      }
      std::fill(rank_hit.begin(), rank_hit.end(), 0);
    }
  }
  return copies;
}

}  // namespace k25
