// The prediction model: per step and collective kind, predicted step = base step - exposed communication +
// predicted exposed communication. Each op of the base is its ranks' wait for the last one plus its transfer;
// on the alternative the wait stays and the transfer is the alternative's op at that size, added to the wait
// (additive: a ring cannot start before the last rank arrives) or run during it (overlapping: a one-shot
// push starts at each arrival); where the alternative does not say which, both ends are given as a range.
// Without join information the wait is dropped (back-to-back, said). A replay whose decode mode ran the
// base's own shape gives the communication measured (docs/predict.md).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/enum_names.hpp"
#include "predict/predict_inputs.hpp"

namespace k25 {

// How a kind's new communication per op is made (docs/predict.md, "The model").
enum class PredictMethod {
  additive,        // the wait + the alternative's op
  overlapping,     // the longer of the wait and the alternative's op
  back_to_back,    // the alternative's op alone: the wait dropped
  measured_shape,  // the alternative's decode mode, run with the base's gaps and skew
};
template <>
struct EnumNames<PredictMethod> {
  static constexpr std::array<std::pair<PredictMethod, std::string_view>, 4> values{
      {{PredictMethod::additive, "additive"},
       {PredictMethod::overlapping, "overlapping"},
       {PredictMethod::back_to_back, "back-to-back"},
       {PredictMethod::measured_shape, "measured-shape"}}};
};

// Where a kind's new op time comes from: the alternative's curve at a measured size, between two, beyond
// them (--extrapolate), or nowhere (the base's time kept).
enum class OpSource { measured, interpolated, extrapolated, kept };
template <>
struct EnumNames<OpSource> {
  static constexpr std::array<std::pair<OpSource, std::string_view>, 4> values{
      {{OpSource::measured, "measured"},
       {OpSource::interpolated, "interpolated"},
       {OpSource::extrapolated, "extrapolated"},
       {OpSource::kept, "kept"}}};
};

// One kind of one level under one estimate.
struct KindEstimate {
  std::string kind, name;
  PredictMethod method = PredictMethod::back_to_back;  // how this kind's op was made
  double bytes = 0, ops_per_step = 0;
  double base_comm_us = 0, base_exposed_us = 0, hidden_us = 0;  // per step, p50
  std::optional<double> wait_us;                                // per op, kept (additive and overlapping)
  std::optional<double> alt_op_us;                              // the alternative's op at `bytes`, p50
  std::optional<double> alt_op_p90_us;                          // and p90 (= p50 where the input has no p90)
  OpSource source = OpSource::kept;
  double new_comm_us = 0, new_exposed_us = 0, new_exposed_p90_us = 0;  // per step
};

struct StepEstimate {
  PredictMethod method = PredictMethod::back_to_back;  // the method of the kinds not declared otherwise
  double exposed_us = 0, exposed_p90_us = 0;           // predicted exposed communication per step
  double step_us = 0, step_p90_us = 0;                 // predicted step (TPOT where the base's step is TPOT)
  std::vector<KindEstimate> kinds;
};

struct LevelPrediction {
  int batch = 0;
  bool step_is_tpot = false;
  double base_step_us = 0, base_step_p90_us = 0, base_exposed_us = 0;
  // Each estimate that applies: overlapping and additive where the base has join information for every kind
  // it predicts, back-to-back always (unless refused), measured-shape where the alternative ran the base's
  // shape.
  std::vector<StepEstimate> estimates;
  // The predicted figure: the estimate of `low` (the smaller step) to that of `high`; one figure where they
  // are the same method. Only when not refused.
  PredictMethod low = PredictMethod::back_to_back, high = PredictMethod::back_to_back;
  std::string why;      // why the predicted figure is the one (or the range) it is, in words
  std::string refused;  // why nothing is predicted at this level; empty: predicted
  std::vector<std::string> notes;
  std::vector<std::string> caveats;     // the base's and this level's (BaseDocument, BaseLevel): in the tag
  std::vector<std::string> moved_most;  // up to 3 kinds whose exposed communication moved most (high end)
  const StepEstimate* estimate(PredictMethod method) const;
  bool is_range() const { return low != high; }
  const StepEstimate& low_estimate() const { return *estimate(low); }
  const StepEstimate& high_estimate() const { return *estimate(high); }
};

struct AltPrediction {
  std::string label, path, format, timing;
  int ranks = 0;
  std::vector<std::string> mismatches;  // said, never silently used
  std::vector<std::string> notes;       // the alternative's own caveats
  std::vector<LevelPrediction> levels;  // one per base level
  std::string
      headline;  // "on LABEL: TPOT at C=1 12.4 -> 9.4 .. 10.6 ms (-24 .. -14 %) [predicted, range: ...]"
};

struct PredictOptions {
  // Sizes outside the alternative's measured range: labelled, not refused; bounded by what a link can do
  // (below the range no faster than its smallest measured op, above it no slower than its largest size's
  // bandwidth).
  bool allow_extrapolation = false;
};

// A predicted TPOT (either end of the figure) more than this many times the base's, or less than its
// 1/kImplausibleFactor, and a step moved that far by an extrapolated op: refused as implausible, saying which
// kind's op made it.
inline constexpr double kImplausibleFactor = 10;

AltPrediction predict_with(const BaseDocument& base, const AltDocument& alt, const PredictOptions& options);

// A level as the output names it: "C=4" (a serve concurrency), "T=16" (a step's batch), or "batch not said"
// (a trace's steps without one).
std::string level_name(int batch, bool step_is_tpot);

// A step or TPOT of `level` in the unit its headline writes: "12.0 ms" (TPOT, or a base step of 1 ms or
// more), else "850.0 us".
std::string step_text(const LevelPrediction& level, double us);

// Whether two steps of `level` read the same in its headline (the figure in its unit and the change in %).
bool same_in_headline(const LevelPrediction& level, double a_us, double b_us);

// "[predicted, range: overlapping .. additive: ...]", "[predicted, back-to-back: ...]", with ", extrapolated"
// and ", partial" where so, and "; the base: CAVEAT; CAVEAT" where the base has caveats; "[refused: ...]".
std::string prediction_tag(const LevelPrediction& level);

// Output tokens per second at the level's concurrency from an estimate's TPOT (the same batch and scheduler
// assumed); empty where the step is not TPOT.
std::optional<double> output_tokens_per_s(const LevelPrediction& level, const StepEstimate& estimate);

// The headline at the smallest batch predicted: "on LABEL: TPOT at C=1 12.4 -> 10.6 ms (-14 %) [...]", a
// range "12.4 -> 9.4 .. 10.6 ms (-24 .. -14 %)", or the step at T=... where the base has no TPOT; says so
// where every level was refused.
std::string prediction_headline(const AltPrediction& prediction);

}  // namespace k25
