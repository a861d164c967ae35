// Applies --gaps-from to a loaded config: a capture's step shape, or a serve report's compute per layer.
#include "app/gaps_from_option.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/gaps_from_capture.hpp"
#include "analysis/gaps_from_serve.hpp"
#include "analysis/report_reader.hpp"
#include "common/error.hpp"

namespace k25 {
namespace {

std::string gaps_file_text(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw UsageError("--gaps-from: cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace

void apply_gaps_from(const std::string& path, RunConfig& config) {
  const auto& modes = config.sweep.modes;
  if (std::find(modes.begin(), modes.end(), TimingMode::decode) == modes.end())
    throw UsageError(
        "--gaps-from sets the gaps of the decode timing mode, but no decode mode is asked for (add --modes eager,decode)");
  const std::string text = gaps_file_text(path);
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (!doc.is_discarded() && looks_like_capture_json(doc)) {
    config.sweep.decode.captured = shapes_from_capture(doc, path);
    config.sweep.decode.gaps_from = describe_shapes(config.sweep.decode.captured, path);
    return;
  }
  const RunReport report = parse_report_text(text, path);
  const ServeDerivedGaps gaps = gaps_from_serve(report, config.model.num_layers);
  config.sweep.decode.layer_gap_us = gaps.layer_gap_us;
  config.sweep.decode.gaps_from = describe(gaps, path);
}

}  // namespace k25
