// The analysis stage: derives attribution, latency fits and link fractions from a gathered report. Pure, no
// I/O.
#pragma once

#include "analysis/run_report.hpp"

namespace k25 {

// Fills report.attribution (AttributionRow, from serve levels and results), report.fits (LatencyFit per phase
// and mode), report.headline (report_headline, with its tags), each result's link_fraction (busbw /
// topology.link_limit_gbps where that limit is known) and the derived notes in run.notes
// (refresh_derived_notes; and "token counts: " where serve token counts are not the server's usage, "served
// model: " where the endpoint served another model than the replayed one). Replaces whatever those fields
// held, so it can run again on a re-read or merged report.
void analyze_report(RunReport& report);

}  // namespace k25
