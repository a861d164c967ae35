// The base the predict fuzz targets predict against: one decode level with an AllReduce and an AllToAllv of
// known sizes, a join and an overlap, so that a fuzzed alternative reaches every branch of the model.
#pragma once

#include "predict/predict_document.hpp"
#include "predict/step_prediction.hpp"

inline k25::BaseDocument predict_fuzz_base() {
  k25::BaseDocument base;
  base.path = "base.json";
  base.ranks = 2;
  k25::BaseLevel level;
  level.batch = 1;
  level.step_us = 10000;
  level.step_p90_us = 11000;
  level.kinds.push_back({"allreduce", "bf16", 14336, 100, 4000, 1000, 15.0, "fuzz"});
  level.kinds.push_back({"alltoallv", "fp8", 1 << 20, 2, 300, 0, std::nullopt, ""});
  base.levels.push_back(level);
  return base;
}

// Predicts with `alt` (both with and without extrapolation) and renders every output.
inline void predict_and_render(const k25::AltDocument& alt) {
  k25::PredictResult result;
  result.base = predict_fuzz_base();
  for (const bool extrapolate : {false, true}) {
    k25::PredictOptions options;
    options.allow_extrapolation = extrapolate;
    result.alternatives.push_back(k25::predict_with(result.base, alt, options));
  }
  (void)k25::predict_json(result).dump(2, ' ', false,
                                       nlohmann::json::error_handler_t::replace);  // as the command
  (void)k25::predict_markdown(result);
  (void)k25::predict_csv(result);
}
