// What a report is of and where it ran, in words: its model name and a short label such as "pcie, 8 ranks,
// nccl".
#pragma once

#include <string>
#include <vector>

#include "analysis/run_report.hpp"

namespace k25 {

// The model name from the run's effective config (config.model.name, or config.model when it is a string);
// empty when the report does not say.
std::string report_model_name(const RunReport& report);

// Topology kind first so that "pcie vs nvlink" reads naturally, then ranks, transport and first host.
std::string report_label(const RunReport& report);

// A host that ran more ranks than it has online cores (run.hosts against run.host_cores): the ranks share
// cores, so host-transport times include the scheduler's time slicing.
struct OversubscribedHost {
  std::string host;
  int ranks = 0, cores = 0;
};
std::vector<OversubscribedHost> oversubscribed_hosts(const RunInfo& run);

// The model id the serve endpoint answered with (serve.model) where it is not the replayed model (the
// config's model name), compared without case, punctuation or an organisation prefix ("moonshotai/Kimi-K2.5"
// is "Kimi-K2.5", so is "kimi-k2.5-int4"). Empty when they match or either is unknown.
std::string foreign_served_model(const RunReport& report);

}  // namespace k25
