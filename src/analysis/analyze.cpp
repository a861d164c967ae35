// The analysis stage over a whole report.
#include "analysis/analyze.hpp"

#include "analysis/attribution.hpp"
#include "analysis/latency_fit.hpp"

namespace k25 {

void analyze_report(RunReport& report) {
  for (PhaseResult& result : report.results) {
    if (report.topology.link_limit_gbps && *report.topology.link_limit_gbps > 0) {
      result.link_fraction = result.busbw_gbps / *report.topology.link_limit_gbps;
    } else {
      result.link_fraction.reset();
    }
  }
  report.attribution = attribute_decode_time(report.results, report.serve.levels, report.run.ranks);
  report.fits = fit_latency_models(report.results);
}

}  // namespace k25
