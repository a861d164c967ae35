// Applies --gaps-from to a loaded config.
#include "app/gaps_from_option.hpp"

#include <algorithm>

#include "analysis/gaps_from_serve.hpp"
#include "analysis/report_reader.hpp"
#include "common/error.hpp"

namespace k25 {

void apply_gaps_from(const std::string& path, RunConfig& config) {
  const auto& modes = config.sweep.modes;
  if (std::find(modes.begin(), modes.end(), TimingMode::decode) == modes.end())
    throw UsageError(
        "--gaps-from sets the gaps of the decode timing mode, but no decode mode is asked for (add --modes eager,decode)");
  const RunReport report = read_report_file(path);
  const ServeDerivedGaps gaps = gaps_from_serve(report, config.model.num_layers);
  config.sweep.decode.layer_gap_us = gaps.layer_gap_us;
  config.sweep.decode.gaps_from = describe(gaps, path);
}

}  // namespace k25
