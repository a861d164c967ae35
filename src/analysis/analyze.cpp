// The analysis stage over a whole report.
#include "analysis/analyze.hpp"

#include "analysis/attribution.hpp"
#include "analysis/headline.hpp"
#include "analysis/join_cost.hpp"
#include "analysis/latency_fit.hpp"
#include "analysis/report_notes.hpp"

namespace k25 {

void analyze_report(RunReport& report) {
  for (PhaseResult& result : report.results) {
    if (report.topology.link_limit_gbps && *report.topology.link_limit_gbps > 0) {
      result.link_fraction = result.busbw_gbps / *report.topology.link_limit_gbps;
    } else {
      result.link_fraction.reset();
    }
  }
  fill_join_costs(report.results);
  const std::vector<AttributionRow> attribution =
      attribute_decode_time(report.results, report.serve.levels, report.run.ranks);
  report.attribution = attribution;
  report.fits = fit_latency_models(report.results);
  report.headline = headline_sentences(report.results, attribution);
  refresh_derived_notes(report, attribution);
}

}  // namespace k25
