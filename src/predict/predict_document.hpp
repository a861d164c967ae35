// predict.json, the typed document of what `k25comm predict` writes: the struct, its schema_version, and
// to_json/from_json, the one place that names each field (predict_document.cpp); every reader goes through it
// (tools/plot-predict and tools/bench/compare_predict.py are checked against what it writes: ctest
// predict_python_readers_fields). predict.md and predict.csv are made from the same struct.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "predict/predict_inputs.hpp"
#include "predict/step_prediction.hpp"

namespace k25 {

// 3: the base's caveats (base.caveats, base.levels[].caveats, alternatives[].levels[].caveats) and a kind's
// size from a config (base.levels[].kinds[].size_from_config).
inline constexpr int kPredictSchemaVersion = 3;

struct PredictDocument {
  int schema_version = kPredictSchemaVersion;
  std::string tool_version, git_sha, created_at, command_line;
  BaseDocument base;
  std::vector<AltPrediction> alternatives;  // one per --with, in order
};

// The model in words, one sentence a line (predict.json "model", predict.md's "How it was predicted").
const std::vector<std::string>& model_lines();

// The assumption behind output tok/s, said beside the figure.
inline constexpr const char* kThroughputAssumption =
    "output tok/s = C / predicted TPOT: the same batch, scheduler and request mix assumed";

// predict.json's members. Written: every field of the struct, and beside them what is derived from it (each
// level's tag and predicted figure, tok/s, the model's sentences), which from_json leaves to be derived
// again. from_json throws nlohmann::json::exception for a member that is missing or of another type.
void to_json(nlohmann::json& j, const PredictDocument& document);
void from_json(const nlohmann::json& j, PredictDocument& document);
void to_json(nlohmann::json& j, const BaseDocument& base);
void from_json(const nlohmann::json& j, BaseDocument& base);
void to_json(nlohmann::json& j, const AltPrediction& prediction);
void from_json(const nlohmann::json& j, AltPrediction& prediction);

nlohmann::json predict_json(const PredictDocument& document);
// predict.json's text: predict_json indented, bytes that are not UTF-8 (a pasted file's name) replaced.
std::string predict_json_text(const PredictDocument& document);
// predict.json read back. Throws UsageError "PATH: why" for text that is not JSON, a schema_version this
// build does not write, or a member missing or of another type (naming it).
PredictDocument read_predict_document(const std::string& text, const std::string& path);

std::string predict_markdown(const PredictDocument& document);
// One row per (alternative, batch, method): label, batch, unit, method, base and predicted figures, tag.
std::string predict_csv(const PredictDocument& document);

}  // namespace k25
