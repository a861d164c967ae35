// How a prediction is said: its tag, its headline, and the throughput it implies.
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "predict/step_prediction.hpp"

namespace k25 {
namespace {

bool any_source(const LevelPrediction& level, OpSource source) {
  for (const PredictMethod end : {level.low, level.high})
    for (const KindEstimate& k : level.estimate(end)->kinds)
      if (k.source == source) return true;
  return false;
}

// A step or TPOT in the unit a reader expects: TPOT in ms, a step in us below 1 ms.
std::string in_unit(double us, bool ms) {
  return ms ? fmt::format("{:.1f}", us / 1000) : fmt::format("{:.1f}", us);
}

std::string change_text(double before_us, double after_us) {
  const double percent = before_us > 0 ? std::round((after_us - before_us) / before_us * 100) : 0;
  return fmt::format("{:+.0f}", percent == 0 ? 0.0 : percent);  // never "-0"
}

}  // namespace

std::string step_text(const LevelPrediction& level, double us) {
  const bool ms = level.step_is_tpot || level.base_step_us >= 1000;
  return in_unit(us, ms) + (ms ? " ms" : " us");
}

bool same_in_headline(const LevelPrediction& level, double a_us, double b_us) {
  return step_text(level, a_us) == step_text(level, b_us) &&
         change_text(level.base_step_us, a_us) == change_text(level.base_step_us, b_us);
}

std::string level_name(int batch, bool step_is_tpot) {
  if (batch <= 0) return "batch not said";
  return fmt::format("{}={}", step_is_tpot ? "C" : "T", batch);
}

std::string prediction_tag(const LevelPrediction& level) {
  if (!level.refused.empty()) return "[refused: " + level.refused + "]";
  std::string tag = "[predicted, ";
  if (level.is_range())
    tag += fmt::format("range: {} .. {}: {}", to_string(level.low), to_string(level.high), level.why);
  else if (level.low == PredictMethod::measured_shape)
    tag += "measured with the base's shape: " + level.why;
  else
    tag += fmt::format("{}: {}", to_string(level.low), level.why);
  if (any_source(level, OpSource::extrapolated)) tag += ", extrapolated";
  if (any_source(level, OpSource::kept)) tag += ", partial: some kinds kept at the base's time";
  if (!level.caveats.empty()) tag += fmt::format("; the base: {}", fmt::join(level.caveats, "; "));
  return tag + "]";
}

std::optional<double> output_tokens_per_s(const LevelPrediction& level, const StepEstimate& estimate) {
  if (!level.step_is_tpot || estimate.step_us <= 0) return std::nullopt;
  return level.batch * 1e6 / estimate.step_us;
}

std::string prediction_headline(const AltPrediction& prediction) {
  for (const LevelPrediction& level : prediction.levels) {
    if (!level.refused.empty()) continue;
    const double low = level.low_estimate().step_us, high = level.high_estimate().step_us;
    const bool ms = level.step_is_tpot || level.base_step_us >= 1000;
    const std::string unit = ms ? "ms" : "us";
    const std::string after =
        level.is_range() ? fmt::format("{} .. {}", in_unit(low, ms), in_unit(high, ms)) : in_unit(high, ms);
    const std::string change = level.is_range()
                                   ? fmt::format("{} .. {}", change_text(level.base_step_us, low),
                                                 change_text(level.base_step_us, high))
                                   : change_text(level.base_step_us, high);
    return fmt::format("on {}: {}{} {} -> {} {} ({} %) {}", prediction.label,
                       level.step_is_tpot ? "TPOT" : "step",
                       level.batch > 0 ? " at " + level_name(level.batch, level.step_is_tpot) : "",
                       in_unit(level.base_step_us, ms), after, unit, change, prediction_tag(level));
  }
  if (prediction.levels.empty()) return fmt::format("on {}: nothing to predict", prediction.label);
  return fmt::format("on {}: not predicted {}", prediction.label, prediction_tag(prediction.levels.front()));
}

}  // namespace k25
