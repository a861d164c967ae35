// The rules every read of capture files follows, whichever command reads them (`k25comm capture`, the serve
// run's live profile, `k25comm report --capture`): the kernel-class tables, the model that turns sizes into
// tokens, and the step rules. Their defaults are said here once.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/capture_document.hpp"

namespace k25 {

struct CaptureRules {
  // GPU idle gaps: a step boundary is an idle gap at least this long (--step-gap-us).
  static constexpr double kDefaultStepGapUs = 100;
  // Prefill: steps above the largest jump of at least this x between consecutive step sizes
  // (--prefill-factor).
  static constexpr double kDefaultPrefillFactor = 4.0;

  std::vector<std::string>
      kernel_class_tables;            // the user's, tried before the shipped data/kernel-classes.yaml
  std::optional<CaptureModel> model;  // a config's model: sizes become tokens (none: unknown)
  double step_gap_us = kDefaultStepGapUs;
  double prefill_factor = kDefaultPrefillFactor;
  std::optional<int> prefill_tokens;  // instead of the factor: steps above this many tokens (needs a model)
};

}  // namespace k25
