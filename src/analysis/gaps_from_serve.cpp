// Compute per layer of a decode step, from a serve TPOT and the communication measured beside it.
#include "analysis/gaps_from_serve.hpp"

#include <fmt/format.h>

#include "analysis/attribution.hpp"
#include "common/error.hpp"

namespace k25 {

ServeDerivedGaps gaps_from_serve(const RunReport& report, int num_layers) {
  if (num_layers <= 0) throw UsageError("--gaps-from: the model has no layers to spread the compute over");
  const AttributionRow* row = nullptr;
  for (const AttributionRow& candidate : report.attribution)
    if (candidate.tpot_ms > 0 && (row == nullptr || candidate.concurrency < row->concurrency))
      row = &candidate;
  if (row == nullptr)
    throw UsageError(
        "--gaps-from: the report has no serve level with a TPOT next to measured communication (run k25comm with serve.endpoint, or `k25comm report --serve`, to make one)");
  ServeDerivedGaps gaps;
  gaps.concurrency = row->concurrency;
  gaps.tpot_ms = row->tpot_ms;
  for (const char* part : {"allreduce", "alltoall"})
    if (const CommShare* share = graph_else_eager_share(*row, part)) {
      gaps.comm_ms += share->comm_ms;
      gaps.keys.push_back(share->key.text());
    }
  if (gaps.keys.empty())
    throw UsageError(
        fmt::format("--gaps-from: the report measured no communication at concurrency {}", gaps.concurrency));
  if (gaps.comm_ms >= gaps.tpot_ms)
    throw UsageError(fmt::format(
        "--gaps-from: the communication of one step ({:.3f} ms) is not shorter than the TPOT ({:.3f} ms) at concurrency {}: no compute is left to spread over the layers (the serve figures and the measured ones come from different systems?)",
        gaps.comm_ms, gaps.tpot_ms, gaps.concurrency));
  gaps.layer_gap_us = (gaps.tpot_ms - gaps.comm_ms) * 1e3 / num_layers;
  return gaps;
}

std::string describe(const ServeDerivedGaps& gaps, const std::string& path) {
  std::string keys;
  for (const std::string& key : gaps.keys) keys += (keys.empty() ? "" : " + ") + key;
  return fmt::format(
      "decode gaps from {}: TPOT {:.3f} ms at concurrency {} minus communication {:.3f} ms ({}) = {:.1f} us of compute per layer",
      path, gaps.tpot_ms, gaps.concurrency, gaps.comm_ms, keys, gaps.layer_gap_us);
}

}  // namespace k25
