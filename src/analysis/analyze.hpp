// The analysis stage: derives attribution, latency fits and link fractions from a gathered report. Pure, no
// I/O.
#pragma once

#include "analysis/run_report.hpp"

namespace k25 {

// Fills report.attribution (AttributionRow, from serve levels and results), report.fits (LatencyFit per phase
// and mode), report.headline, each result's link_fraction (busbw / topology.link_limit_gbps where that limit
// is known) and the derived notes in run.notes (refresh_derived_notes). Replaces whatever those fields held,
// so it can run again on a re-read or merged report.
void analyze_report(RunReport& report);

}  // namespace k25
