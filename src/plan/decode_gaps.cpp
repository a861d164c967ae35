// Gap lengths of the decode timing mode: per-op and per-layer compute, and a seeded per-rank skew.
#include "plan/decode_gaps.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

namespace k25 {
namespace {

// SplitMix64's finalizer: a well-mixed 64-bit hash of one word.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A seeded draw in [0, 1): a function of (seed, rank, phase, tokens, op_index) alone.
double seeded_unit(std::uint64_t seed, int rank, Phase phase, int tokens, std::size_t op_index) {
  std::uint64_t h = mix(seed);
  for (const std::uint64_t word : {static_cast<std::uint64_t>(rank), static_cast<std::uint64_t>(phase),
                                   static_cast<std::uint64_t>(tokens), static_cast<std::uint64_t>(op_index)})
    h = mix(h ^ word);
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

// Sizes and figures as the key writes them: enough digits to tell shapes apart, few enough to stay one line.
std::string key_number(double value) {
  return fmt::format("{:.4g}", value);
}

}  // namespace

double decode_skew_us(const DecodeGapSpec& spec, int rank, Phase phase, int tokens, std::size_t op_index) {
  if (spec.skew_us <= 0) return 0;
  return seeded_unit(spec.seed, rank, phase, tokens, op_index) * spec.skew_us;
}

double stats_quantile(const Stats& stats, double unit) {
  const std::array<std::pair<double, double>, 5> knots{
      {{0, stats.min}, {0.5, stats.p50}, {0.9, stats.p90}, {0.99, stats.p99}, {1, stats.max}}};
  for (std::size_t i = 1; i < knots.size(); ++i)
    if (unit <= knots[i].first) {
      const auto& [u0, v0] = knots[i - 1];
      const auto& [u1, v1] = knots[i];
      return v0 + (v1 - v0) * (unit - u0) / (u1 - u0);
    }
  return stats.max;
}

const CapturedShape* captured_shape_for(const PhasePlan& phase, const DecodeGapSpec& spec) {
  const CapturedShape* best = nullptr;
  const auto distance = [&](const CapturedShape& s) {
    return std::abs(std::log(std::max(s.batch, 1)) - std::log(std::max(phase.tokens, 1)));
  };
  for (const CapturedShape& s : spec.captured)
    if (s.kind == phase.kind && (best == nullptr || distance(s) < distance(*best))) best = &s;
  return best;
}

std::vector<double> decode_gaps_us(const PhasePlan& phase, int rank, const DecodeGapSpec& spec) {
  if (!spec.captured.empty()) {
    std::vector<double> gaps(phase.ops.size(), 0.0);
    const CapturedShape* shape = captured_shape_for(phase, spec);
    if (shape == nullptr) return gaps;
    for (std::size_t i = 0; i < gaps.size(); ++i) {
      gaps[i] = shape->gap_us;
      if (shape->rank_arrival_us.empty()) continue;
      const Stats& arrival =
          shape->rank_arrival_us[static_cast<std::size_t>(rank) % shape->rank_arrival_us.size()];
      gaps[i] += stats_quantile(arrival, seeded_unit(spec.seed, rank, phase.phase, phase.tokens, i));
    }
    return gaps;
  }
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
  if (!spec.captured.empty()) {
    const CapturedShape* shape = captured_shape_for(phase, spec);
    return shape == nullptr ? 0 : shape->gap_us * static_cast<double>(phase.ops.size());
  }
  DecodeGapSpec no_skew = spec;
  no_skew.skew_us = 0;
  double total = 0;
  for (const double gap : decode_gaps_us(phase, 0, no_skew)) total += gap;
  return total;
}

std::string shape_key(const DecodeGapSpec& spec) {
  if (spec.captured.empty())
    return fmt::format("gap {} us + {} us per layer, skew < {} us, seed {}", key_number(spec.gap_us),
                       key_number(spec.layer_gap_us), key_number(spec.skew_us), spec.seed);
  std::string figures, summary;
  for (const CapturedShape& s : spec.captured) {
    figures += fmt::format("{} {} {};", to_string(s.kind), s.batch, key_number(s.gap_us));
    for (const Stats& a : s.rank_arrival_us)
      figures += fmt::format("{},{},{},{},{};", key_number(a.min), key_number(a.p50), key_number(a.p90),
                             key_number(a.p99), key_number(a.max));
    summary += fmt::format("{}{} batch {} gap {:.1f} us, {} ranks' arrivals", summary.empty() ? "" : "; ",
                           kind_info(s.kind).title, s.batch, s.gap_us, s.rank_arrival_us.size());
  }
  std::uint64_t h = 0;
  for (const char c : figures) h = mix(h ^ static_cast<unsigned char>(c));
  return fmt::format("captured: {} (#{:08x})", summary, h >> 32);
}

}  // namespace k25
