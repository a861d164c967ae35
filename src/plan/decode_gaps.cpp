// Gap lengths of the decode timing mode: per-op and per-layer compute, and a seeded per-rank skew.
#include "plan/decode_gaps.hpp"

#include <map>

namespace k25 {
namespace {

// SplitMix64's finalizer: a well-mixed 64-bit hash of one word.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

double decode_skew_us(const DecodeGapSpec& spec, int rank, Phase phase, int tokens, std::size_t op_index) {
  if (spec.skew_us <= 0) return 0;
  std::uint64_t h = mix(spec.seed);
  for (const std::uint64_t word : {static_cast<std::uint64_t>(rank), static_cast<std::uint64_t>(phase),
                                   static_cast<std::uint64_t>(tokens), static_cast<std::uint64_t>(op_index)})
    h = mix(h ^ word);
  const double unit = static_cast<double>(h >> 11) * 0x1.0p-53;  // [0, 1)
  return unit * spec.skew_us;
}

std::vector<double> decode_gaps_us(const PhasePlan& phase, int rank, const DecodeGapSpec& spec) {
  std::map<int, int> ops_of_layer;
  for (const CommOp& op : phase.ops)
    if (op.layer >= 0) ++ops_of_layer[op.layer];
  std::vector<double> gaps;
  gaps.reserve(phase.ops.size());
  for (std::size_t i = 0; i < phase.ops.size(); ++i) {
    const int layer = phase.ops[i].layer;
    double gap = spec.gap_us;
    if (layer >= 0) gap += spec.layer_gap_us / ops_of_layer.at(layer);
    gaps.push_back(gap + decode_skew_us(spec, rank, phase.phase, phase.tokens, i));
  }
  return gaps;
}

double configured_gaps_us(const PhasePlan& phase, const DecodeGapSpec& spec) {
  DecodeGapSpec no_skew = spec;
  no_skew.skew_us = 0;
  double total = 0;
  for (const double gap : decode_gaps_us(phase, 0, no_skew)) total += gap;
  return total;
}

}  // namespace k25
