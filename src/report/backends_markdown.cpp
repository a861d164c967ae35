// The AllReduce backends' tables of report.md.
#include "report/backends_markdown.hpp"

#include <fmt/format.h>

#include "common/column_table.hpp"

namespace k25 {
namespace {

TableCell us_cell(const std::optional<double>& us) {
  return TableCell::figure(us, us ? fmt::format("{:.2f}", *us) : "-");
}

// "best", "WRONG (12 wrong elements)", "not run: ...", or empty.
std::string verdict(const AllreduceBackendRow& row) {
  if (!row.not_run.empty()) return "not run: " + row.not_run;
  if (row.wrong > 0) return fmt::format("WRONG ({} wrong elements)", row.wrong);
  if (!row.checked) return row.best ? "best (not checked: --no-check)" : "not checked (--no-check)";
  return row.best ? "**best**" : "";
}

}  // namespace

std::string render_allreduce_backends(const RunReport& report) {
  const BackendAnalysis& analysis = report.backends;
  if (!analysis.present()) return {};
  using R = const AllreduceBackendRow&;
  const std::string against = analysis.default_backend.empty() ? "the default" : analysis.default_backend;
  const Columns<AllreduceBackendRow> columns = {
      {"backend", "", [](R r) { return TableCell(r.is_default ? r.backend + " (default)" : r.backend); }},
      {"op p50", "us", [](R r) { return us_cell(r.op_p50_us); }},
      {"op p90", "us", [](R r) { return us_cell(r.op_p90_us); }},
      {"burst per step p50", "us", [](R r) { return us_cell(r.step_p50_us); }},
      {"decode step p50", "us", [](R r) { return us_cell(r.decode_step_p50_us); }},
      {"decode comm p50", "us", [](R r) { return us_cell(r.decode_comm_p50_us); }},
      {"vs " + against, "",
       [](R r) { return TableCell::figure(r.ratio, r.ratio ? fmt::format("{:.2f}x", *r.ratio) : "-"); }},
      {"wrong", "",
       [](R r) { return r.checked ? TableCell::count(static_cast<double>(r.wrong)) : TableCell("-"); }},
      {"verdict", "", [](R r) { return TableCell(verdict(r)); }, kEveryOutput, 0, Align::left},
  };
  std::string md = "## AllReduce backends\n\n";
  md += fmt::format(
      "The AllReduce burst replayed by each backend, interleaved, with the same sizes, dtype, seeds and trials "
      "(k25comm's docs/allreduce-backends.md). Times in microseconds of the slowest rank. "
      "*burst per step* is one decode step's burst in the table's mode (graph where measured, else eager); *decode "
      "step* the step of the decode mode (compute gaps included) and *decode comm* its communication; *vs {}* the "
      "burst's ratio to the default's. A backend with wrong elements in its exact check is WRONG and never best.\n\n",
      against);
  for (const AllreduceBackendTable& table : analysis.tables) {
    md += fmt::format("### T={} ({}, {} ops of {} bytes)\n\n", table.tokens, to_string(table.mode),
                      table.ops_per_step, table.bytes_per_op);
    std::vector<const AllreduceBackendRow*> rows;
    for (const AllreduceBackendRow& row : table.rows) rows.push_back(&row);
    md += markdown_table(columns, rows) + "\n";
  }
  std::string best = "Best per token count:";
  for (const AllreduceBackendTable& table : analysis.tables)
    best += fmt::format(" T={} {};", table.tokens, table.best.empty() ? "none exact" : table.best);
  best.back() = '.';
  md += best + "\n\n";
  if (!analysis.crossover.text.empty())
    md += "One-shot against two-shot: " + analysis.crossover.text + ".\n\n";
  for (const BackendTpotEffect& e : analysis.tpot)
    md += fmt::format(
        "- C={}: with {} (best at T={}, {}), TPOT {:.2f} -> {:.2f} ms: the default's burst {:.3f} ms taken out, {:.3f} ms put in (measured in replay; TPOT not re-measured)\n",
        e.concurrency, e.backend, e.tokens, to_string(e.mode), e.tpot_ms, e.new_tpot_ms, e.default_burst_ms,
        e.best_burst_ms);
  if (!analysis.tpot.empty()) md += "\n";
  return md;
}

}  // namespace k25
