// What `k25comm predict` writes: predict.json (schema_version), predict.md and predict.csv, from the base,
// the predictions on each alternative and the model they were made by.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "predict/predict_inputs.hpp"
#include "predict/step_prediction.hpp"

namespace k25 {

inline constexpr int kPredictSchemaVersion = 2;

struct PredictResult {
  std::string tool_version, git_sha, created_at, command_line;
  BaseDocument base;
  std::vector<AltPrediction> alternatives;  // one per --with, in order
};

// The model in words, one sentence a line (predict.json "model", predict.md's "How it was predicted").
const std::vector<std::string>& model_lines();

// The assumption behind output tok/s, said beside the figure.
inline constexpr const char* kThroughputAssumption =
    "output tok/s = C / predicted TPOT: the same batch, scheduler and request mix assumed";

nlohmann::json predict_json(const PredictResult& result);
std::string predict_markdown(const PredictResult& result);
// One row per (alternative, batch, method): label, batch, unit, method, base and predicted figures, tag.
std::string predict_csv(const PredictResult& result);

}  // namespace k25
