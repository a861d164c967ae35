// The base the predict fuzz targets predict against: one decode level with an AllReduce (its ops split into
// wait and transfer) and an All-to-Allv without a join, of known sizes and an overlap, and a shape, so that a
// fuzzed alternative reaches every branch of the model.
#pragma once

#include <cstdlib>

#include "common/error.hpp"
#include "predict/predict_document.hpp"
#include "predict/step_prediction.hpp"

inline k25::BaseDocument predict_fuzz_base() {
  k25::BaseDocument base;
  base.path = "base.json";
  base.ranks = 2;
  base.shape = "gap 20 us + 0 us per layer, skew < 60 us, seed 1";
  k25::BaseLevel level;
  level.batch = 1;
  level.step_us = 10000;
  level.step_p90_us = 11000;
  k25::BaseKind reduce;
  reduce.kind = "allreduce";
  reduce.name = "AllReduce";
  reduce.dtype = "bf16";
  reduce.launch = "eager";
  reduce.bytes = 14336;
  reduce.ops_per_step = 100;
  reduce.comm_us = 4000;
  reduce.hidden_us = 1000;
  reduce.join = k25::BaseJoin{15.0, 25.0, "fuzz"};
  level.kinds.push_back(reduce);
  k25::BaseKind dispatch;
  dispatch.kind = "alltoallv";
  dispatch.name = "dispatch";
  dispatch.dtype = "fp8";
  dispatch.bytes = 1 << 20;
  dispatch.ops_per_step = 2;
  dispatch.comm_us = 300;
  level.kinds.push_back(dispatch);
  base.levels.push_back(level);
  return base;
}

// Predicts with `alt` (both with and without extrapolation) and renders every output.
inline void predict_and_render(const k25::AltDocument& alt) {
  k25::check_plausible(alt);  // as read_alt_file does before any prediction
  k25::PredictDocument result;
  result.base = predict_fuzz_base();
  for (const bool extrapolate : {false, true}) {
    k25::PredictOptions options;
    options.allow_extrapolation = extrapolate;
    result.alternatives.push_back(k25::predict_with(result.base, alt, options));
  }
  // As the command writes it, and read back: whatever the writer writes, its one reader reads (a refusal
  // here is a finding, not the documented answer to bad input).
  try {
    (void)k25::read_predict_document(k25::predict_json_text(result), "predict.json");
  } catch (const k25::Error&) {
    std::abort();
  }
  (void)k25::predict_markdown(result);
  (void)k25::predict_csv(result);
}
