// The prediction model: per step and collective kind, predicted step = base step - exposed communication +
// predicted exposed communication, each op's new time the alternative's at that op's size, the base's wait
// for the last rank kept (join-aware) or dropped (back-to-back), communication that ran beside compute hidden
// until its new time exceeds that compute (docs/predict.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "predict/predict_inputs.hpp"

namespace k25 {

enum class PredictMethod { join_aware, back_to_back };
const char* to_string(PredictMethod method);

// One kind of one level under one method.
struct KindEstimate {
  std::string kind;
  double bytes = 0, ops_per_step = 0;
  double base_comm_us = 0, base_exposed_us = 0, hidden_us = 0;  // per step, p50
  std::optional<double> wait_us;                                // per op, kept (join-aware only)
  std::optional<double> alt_op_us;                              // the alternative's op at `bytes`, p50
  std::optional<double> alt_op_p90_us;                          // and p90 (= p50 where the input has no p90)
  // "measured" | "interpolated" | "extrapolated" (the alternative's op), or "kept" (the alternative lacks the
  // kind or the base its size: the base's time is kept)
  std::string source;
  double new_comm_us = 0, new_exposed_us = 0, new_exposed_p90_us = 0;  // per step
};

struct StepEstimate {
  PredictMethod method = PredictMethod::back_to_back;
  double exposed_us = 0, exposed_p90_us = 0;  // predicted exposed communication per step
  double step_us = 0, step_p90_us = 0;        // predicted step (TPOT where the base's step is TPOT)
  std::vector<KindEstimate> kinds;
};

struct LevelPrediction {
  int batch = 0;
  bool step_is_tpot = false;
  double base_step_us = 0, base_step_p90_us = 0, base_exposed_us = 0;
  std::optional<StepEstimate> join_aware;    // where the base has join information for every kind
  std::optional<StepEstimate> back_to_back;  // always, unless refused
  std::string refused;                       // why nothing is predicted at this level; empty: predicted
  std::string back_to_back_reason;           // why the predicted figure is back-to-back (no join)
  std::vector<std::string> notes;
  // The predicted figure: join-aware where possible, else back-to-back. Only when not refused.
  const StepEstimate& predicted() const { return join_aware ? *join_aware : *back_to_back; }
  std::vector<std::string>
      moved_most;  // up to 3 kinds whose exposed communication moved most, "AllReduce -4.2 ms"
};

struct AltPrediction {
  std::string label, path, format, timing;
  int ranks = 0;
  std::vector<std::string> mismatches;  // said, never silently used
  std::vector<std::string> notes;       // the alternative's own caveats
  std::vector<LevelPrediction> levels;  // one per base level
  std::string headline;  // "on LABEL: TPOT at C=1 12.4 -> 7.1 ms (-43 %) [predicted, join-aware]"
};

struct PredictOptions {
  bool allow_extrapolation = false;  // sizes outside the alternative's measured range: labelled, not refused
};

AltPrediction predict_with(const BaseDocument& base, const AltDocument& alt, const PredictOptions& options);

// "[predicted, join-aware]", "[predicted, back-to-back: ...]", with ", extrapolated" and ", partial" where
// so.
std::string prediction_tag(const LevelPrediction& level);

// Output tokens per second at the level's concurrency from the predicted TPOT (the same batch and scheduler
// assumed); empty where the step is not TPOT or the level was refused.
std::optional<double> predicted_output_tokens_per_s(const LevelPrediction& level);

// The headline at the smallest batch predicted: "on LABEL: TPOT at C=1 12.4 -> 7.1 ms (-43 %) [predicted,
// join-aware]", or the step at T=... where the base has no TPOT; says so where every level was refused.
std::string prediction_headline(const AltPrediction& prediction);

}  // namespace k25
