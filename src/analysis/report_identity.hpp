// What a report is of and where it ran, in words: its model name and a short label such as "pcie, 8 ranks,
// nccl".
#pragma once

#include <string>

#include "analysis/run_report.hpp"

namespace k25 {

// The model name from the run's effective config (config.model.name, or config.model when it is a string);
// empty when the report does not say.
std::string report_model_name(const RunReport& report);

// Topology kind first so that "pcie vs nvlink" reads naturally, then ranks, transport and first host.
std::string report_label(const RunReport& report);

}  // namespace k25
