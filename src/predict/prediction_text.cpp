// How a prediction is said: its tag, its headline, and the throughput it implies.
#include <fmt/format.h>

#include "predict/step_prediction.hpp"

namespace k25 {
namespace {

bool any_source(const StepEstimate& s, const char* source) {
  for (const KindEstimate& k : s.kinds)
    if (k.source == source) return true;
  return false;
}

// A step or TPOT in the unit a reader expects: TPOT in ms, a step in us below 1 ms.
std::string step_text(double before_us, double after_us, bool tpot) {
  if (tpot || before_us >= 1000) return fmt::format("{:.1f} -> {:.1f} ms", before_us / 1000, after_us / 1000);
  return fmt::format("{:.1f} -> {:.1f} us", before_us, after_us);
}

}  // namespace

std::string prediction_tag(const LevelPrediction& level) {
  if (!level.refused.empty()) return "[refused: " + level.refused + "]";
  const StepEstimate& s = level.predicted();
  std::string tag = "[predicted, ";
  tag += s.method == PredictMethod::join_aware ? "join-aware" : "back-to-back: " + level.back_to_back_reason;
  if (any_source(s, "extrapolated")) tag += ", extrapolated";
  if (any_source(s, "kept")) tag += ", partial: some kinds kept at the base's time";
  return tag + "]";
}

std::optional<double> predicted_output_tokens_per_s(const LevelPrediction& level) {
  if (!level.refused.empty() || !level.step_is_tpot || level.predicted().step_us <= 0) return std::nullopt;
  return level.batch * 1e6 / level.predicted().step_us;
}

std::string prediction_headline(const AltPrediction& prediction) {
  for (const LevelPrediction& level : prediction.levels) {
    if (!level.refused.empty()) continue;
    const double after = level.predicted().step_us;
    const double change =
        level.base_step_us > 0 ? (after - level.base_step_us) / level.base_step_us * 100 : 0;
    return fmt::format("on {}: {} at {}={} {} ({:+.0f} %) {}", prediction.label,
                       level.step_is_tpot ? "TPOT" : "step", level.step_is_tpot ? "C" : "T", level.batch,
                       step_text(level.base_step_us, after, level.step_is_tpot), change,
                       prediction_tag(level));
  }
  if (prediction.levels.empty()) return fmt::format("on {}: nothing to predict", prediction.label);
  return fmt::format("on {}: not predicted {}", prediction.label, prediction_tag(prediction.levels.front()));
}

}  // namespace k25
