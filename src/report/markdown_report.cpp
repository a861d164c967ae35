// Rendering of report.md from a RunReport.
#include "report/markdown_report.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <system_error>
#include <tuple>

#include <fmt/format.h>

#include "analysis/attribution.hpp"
#include "analysis/headline.hpp"
#include "analysis/latency_fit.hpp"
#include "analysis/report_identity.hpp"
#include "common/column_table.hpp"
#include "doctor/render/node_markdown.hpp"
#include "doctor/verdicts/node_verdicts.hpp"
#include "report/backends_markdown.hpp"
#include "report/live_step_markdown.hpp"
#include "report/serve_columns.hpp"

namespace k25 {

const std::vector<ReportArtifact>& plot_artifacts() {
  static const std::vector<ReportArtifact> kPlots = {
      {"burst_vs_tokens.png", "AllReduce burst of one decode step vs tokens (eager and graph)", true},
      {"alltoall_vs_tokens.png", "MoE All-to-All (dispatch, combine) of one decode step vs tokens per rank",
       true},
      {"serve_vs_concurrency.png", "TPOT and steady output tokens/s vs concurrency", true},
      {"attribution.png", "Communication share of TPOT per concurrency", true},
      {"live_step.png",
       "Live step by kernel class per concurrency (--profile): the step each level's traces gave, decode or prefill, "
       "named on the plot",
       true},
      {"allreduce_backends.png", "One AllReduce's time vs bytes per op, per AllReduce backend", true},
  };
  return kPlots;
}

std::vector<ReportArtifact> existing_artifacts(const std::string& dir) {
  std::vector<ReportArtifact> found;
  std::error_code ec;
  for (const ReportArtifact& plot : plot_artifacts()) {
    if (std::filesystem::is_regular_file(std::filesystem::path(dir) / plot.file_name, ec))
      found.push_back(plot);
  }
  if (std::filesystem::is_regular_file(std::filesystem::path(dir) / kTraceFileName, ec)) {
    found.push_back(
        {kTraceFileName,
         "Timeline per point: the median timed trial of the step on every rank, and a per-op pass trial op by op (Chrome trace events)",
         false});
  }
  return found;
}

namespace {

using R = const PhaseResult&;

std::string num(double value) {
  return readable_number(value);
}

std::string percent(double fraction) {
  return fmt::format("{:.1f} %", fraction * 100.0);
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

// A fact of the system table: its name and value.
using Fact = std::pair<std::string, std::string>;

std::string render_system(const RunReport& r) {
  std::vector<Fact> facts = {
      {"tool", fmt::format("{} {} ({})", r.tool.name, r.tool.version, r.tool.git_sha)},
      {"started / finished (UTC)", r.run.started_at + " / " + r.run.finished_at},
      {"ranks", std::to_string(r.run.ranks)},
      {"hosts", join(r.run.hosts, ", ")},
      {"transport",
       r.run.transport + (r.run.transport_reason.empty() ? "" : " (" + r.run.transport_reason + ")")},
      {"clock", r.run.clock},
      {"topology",
       r.topology.kind + (r.topology.link_description.empty() ? "" : ": " + r.topology.link_description)},
  };
  if (r.topology.link_limit_gbps)
    facts.emplace_back("link limit per direction", fmt::format("{} GB/s", num(*r.topology.link_limit_gbps)));
  if (!r.topology.nccl_version.empty()) facts.emplace_back("NCCL", r.topology.nccl_version);
  facts.emplace_back("MPI", r.run.mpi_version);
  facts.emplace_back("compiler", r.run.compiler);
  const std::string model = report_model_name(r);
  if (!model.empty()) facts.emplace_back("model", model);
  facts.emplace_back("config", r.run.config_path.empty() ? "(built-in defaults)" : r.run.config_path);
  facts.emplace_back("command line", "`" + r.run.command_line + "`");
  for (const auto& [name, value] : r.run.env) facts.emplace_back(name, "`" + value + "`");
  const Columns<Fact> fact_columns = {{"fact", "", [](const Fact& f) { return TableCell(f.first); }},
                                      {"value", "", [](const Fact& f) { return TableCell(f.second); }}};
  std::string md =
      "## System\n\n" + markdown_table(fact_columns, row_pointers(facts), TableLayout::text) + "\n";

  if (r.topology.hosts.size() > 1) {
    const Columns<HostTopology> host_columns = {
        {"host", "", [](const HostTopology& h) { return TableCell(h.name); }},
        {"ranks (node-local order)", "",
         [](const HostTopology& h) {
           std::vector<std::string> ranks;
           for (int rank : h.ranks) ranks.push_back(std::to_string(rank));
           return TableCell(join(ranks, ", "));
         }},
        {"links on the host", "",
         [](const HostTopology& h) {
           return TableCell(h.kind + (h.link_description.empty() ? "" : ": " + h.link_description));
         }},
    };
    md += markdown_table(host_columns, row_pointers(r.topology.hosts), TableLayout::text) + "\n";
  }
  if (!r.topology.gpus.empty()) {
    using G = const GpuInfo&;
    const Columns<GpuInfo> gpu_columns = {
        {"rank", "", [](G g) { return TableCell(std::to_string(g.rank)); }},
        {"host", "", [](G g) { return TableCell(g.host); }},
        {"GPU", "", [](G g) { return TableCell(g.name); }},
        {"bus id", "", [](G g) { return TableCell(g.bus_id); }},
        {"PCIe (max)", "",
         [](G g) {
           return TableCell(fmt::format("Gen{} x{} (Gen{} x{})", g.pcie_gen, g.pcie_width, g.pcie_gen_max,
                                        g.pcie_width_max));
         }},
        {"NVLinks", "", [](G g) { return TableCell(std::to_string(g.nvlinks)); }},
        {"driver", "", [](G g) { return TableCell(g.driver_version); }},
    };
    md += markdown_table(gpu_columns, row_pointers(r.topology.gpus), TableLayout::text) + "\n";
  }
  if (!r.run.config.is_null() && !(r.run.config.is_object() && r.run.config.empty())) {
    md += "<details><summary>Effective config</summary>\n\n```json\n" + r.run.config.dump(2) +
          "\n```\n\n</details>\n\n";
  }
  return md;
}

std::string render_headline(const RunReport& r) {
  if (r.headline.empty()) return {};
  std::string md = "## Headline\n\n";
  for (const std::string& sentence : r.headline) md += "- " + sentence + "\n";
  if (const std::vector<std::string> lines = per_token_count_lines(r); !lines.empty()) {
    md += "\nPer token count:\n\n";
    for (const std::string& line : lines) md += "- " + line + "\n";
  }
  return md + "\n";
}

std::string render_notes(const RunReport& r) {
  std::vector<std::string> notes;
  if (!r.run.complete) {
    notes.push_back(
        "**Incomplete run**: " +
        (r.run.incomplete_reason.empty() ? std::string("no reason recorded") : r.run.incomplete_reason) +
        ". The tables hold what was gathered before it stopped.");
  }
  if (r.topology.kind == "host" && !r.results.empty()) {  // a serve-only report has no transport figure
    notes.push_back("Host transport: these figures are MPI over host memory, not GPU-to-GPU links.");
  }
  for (const std::string& note : r.run.notes) notes.push_back(note);
  if (notes.empty()) return {};
  std::string md = "## Notes and caveats\n\n";
  for (const std::string& note : notes) md += "- " + note + "\n";
  return md + "\n";
}

// Below these many samples, p99 (p90) is the largest sample or interpolated next to it.
constexpr int kTrialsForP99 = 100;
constexpr int kTrialsForP90 = 10;

TableCell bytes_cell(const PhaseResult& p) {
  if (!p.per_rank_bytes()) return TableCell::count(static_cast<double>(p.bytes_per_op));
  return fmt::format("{} ({})", with_thousands(p.bytes_per_rank_mean), with_thousands(p.bytes_per_rank_max));
}

// The tokens asked, and where graph mode padded them or could not, what was measured.
std::string tokens_cell(const PhaseResult& p) {
  if (p.requested_tokens != p.tokens) return fmt::format("{} (padded to {})", p.requested_tokens, p.tokens);
  if (p.above_graph_sizes) return fmt::format("{} (above graph sizes)", p.tokens);
  return std::to_string(p.tokens);
}

std::string render_phase_tables(const RunReport& r) {
  std::string md = "## Communication of one decode step\n\n";
  if (r.results.empty()) return md + "No phase results were gathered.\n\n";
  md +=
      "Times are microseconds of the slowest rank per trial. "
      "*op* is one collective, *step* the whole burst of one decode step; *trials* is how many steps the step percentiles are over. "
      "Bandwidths in GB/s (1e9 B/s); busbw as nccl-tests defines it. "
      "*tokens* is per decode step for allreduce (T = C requests) and per rank for dispatch and combine. "
      "*launch* is the host time to enqueue a step's burst (absent where each op completes before its launch returns). "
      "The *slowest rank* is the one the others waited for: the latest to arrive at the step after the trial's barrier, with how much later than the median rank it arrived (near 0: no straggler).\n\n";
  int fewest_trials = 0;
  for (const PhaseResult& p : r.results)
    if (fewest_trials == 0 || p.iterations < fewest_trials) fewest_trials = p.iterations;
  if (fewest_trials > 0 && fewest_trials < kTrialsForP99) {
    md += fmt::format(
        "Some points have as few as {} trials: their p99 (and p90 below {} trials) is the largest sample or interpolated next to it, not a tail estimate. "
        "Read it as a maximum; raise `--iters` or `--time-budget` for tails.\n\n",
        fewest_trials, kTrialsForP90);
  }
  constexpr Phase kPhases[] = {Phase::allreduce, Phase::allgather, Phase::reducescatter, Phase::dispatch,
                               Phase::combine};
  for (Phase phase : kPhases) {
    std::vector<const PhaseResult*> rows;
    for (const PhaseResult& p : r.results) {
      if (p.phase == phase) rows.push_back(&p);
    }
    if (rows.empty()) continue;
    std::stable_sort(rows.begin(), rows.end(), [](const PhaseResult* a, const PhaseResult* b) {
      return std::tie(a->mode, a->requested_tokens) < std::tie(b->mode, b->requested_tokens);
    });
    const bool per_rank_tokens = phase == Phase::dispatch || phase == Phase::combine;
    const bool per_rank_bytes = rows.front()->per_rank_bytes();
    md += fmt::format("### {} ({})\n\n", to_string(phase), kind_info(rows.front()->kind()).title);
    // Times in us and bandwidths in GB/s, as the text above says.
    const Columns<PhaseResult> columns = {
        {per_rank_tokens ? "tokens/rank" : "tokens/step", "", [](R p) { return TableCell(tokens_cell(p)); }},
        {"mode", "",
         [](R p) {
           return TableCell(std::string(to_string(p.mode)) + (p.device_only ? " (device-only)" : ""));
         }},
        {per_rank_bytes ? "bytes/rank mean (max)" : "bytes/op", "", bytes_cell},
        {"ops/step", "", [](R p) { return TableCell::count(p.ops_per_step); }},
        {"trials", "", [](R p) { return TableCell::count(p.iterations); }},
        {"op p50", "", [](R p) { return TableCell::number(p.op_us.p50); }},
        {"op p90", "", [](R p) { return TableCell::number(p.op_us.p90); }},
        {"step p50", "", [](R p) { return TableCell::number(p.step_us.p50); }},
        {"step p90", "", [](R p) { return TableCell::number(p.step_us.p90); }},
        {"step p99", "", [](R p) { return TableCell::number(p.step_us.p99); }},
        {"launch p50", "",
         [](R p) {
           return TableCell(p.launch_us ? num(p.launch_us->p50) + (p.launch_bound ? " launch-bound" : "")
                                        : "-");
         }},
        {"algbw", "", [](R p) { return TableCell::number(p.algbw_gbps); }},
        {"busbw", "", [](R p) { return TableCell::number(p.busbw_gbps); }},
        {"of link", "", [](R p) { return TableCell(p.link_fraction ? percent(*p.link_fraction) : "-"); }},
        {"wrong", "",
         [](R p) {
           return p.checked ? TableCell::count(static_cast<double>(p.wrong)) : TableCell("not checked");
         }},
        {"slowest rank (lead)", "",
         [](R p) { return TableCell(fmt::format("{} ({} us)", p.slowest_rank, num(p.arrival_lead_us))); }},
    };
    md += markdown_table(columns, rows);
    if (std::any_of(rows.begin(), rows.end(), [](const PhaseResult* p) { return p->launch_bound; }))
      md +=
          "\n*launch-bound*: the host took more than half of the step (p50) to enqueue the burst, so the step measures the host's launch cost more than the collectives; graph mode or `--device-only` shows the GPUs' own time.\n";
    if (std::any_of(rows.begin(), rows.end(), [](const PhaseResult* p) {
          return p->requested_tokens != p->tokens || p->above_graph_sizes;
        }))
      md +=
          "\n*padded to N*: graph mode pads a token count to the next CUDA-graph capture size (`sweep.graph_sizes`), as vLLM pads a decode batch; the row was measured at N tokens, with N's bytes and ops, and rows padded to the same size share one measurement. "
          "*above graph sizes*: the count is larger than the largest capture size, so it was not padded; vLLM runs such a batch eagerly.\n";
    std::set<std::string> sources;
    for (const PhaseResult* p : rows) {
      if (!p->op_us_source.empty()) sources.insert(p->op_us_source);
    }
    if (sources.count("step_over_ops")) {
      md +=
          "\nop times marked from `step_over_ops` are the step time divided by ops per step (graph mode).\n";
    }
    md += "\n";
  }
  return md;
}

std::string render_decode(const RunReport& r) {
  std::vector<const PhaseResult*> rows;
  for (const PhaseResult& p : r.results)
    if (p.decode) rows.push_back(&p);
  if (rows.empty()) return {};
  std::string md = "## Decode mode: collectives between compute\n\n";
  md +=
      "Each op ran after a compute gap (GPU busy kernel on nccl, host busy wait on mpi) and a seeded per-rank skew, so that ranks arrive at each collective apart, as between the GEMMs of a real step. "
      "*comm* is the step minus the rank's measured gaps (slowest rank per trial); *gaps* are rank 0's, measured against configured (skew included). "
      "*join cost* is the op p50 here over the back-to-back (eager) op p50 at the same tokens; *comm / back-to-back* the comm p50 over the eager step p50 (1.0 with no gaps: the replay adds nothing).\n\n";
  const auto decode = [](R p) -> const DecodeFigures& { return *p.decode; };
  const auto times = [](std::optional<double> factor) {
    return TableCell(factor ? fmt::format("{:.2f}x", *factor) : "-");
  };
  const Columns<PhaseResult> columns = {
      {"phase", "", [](R p) { return TableCell(to_string(p.phase)); }},
      {"tokens", "", [](R p) { return TableCell(tokens_cell(p)); }},
      {"ops/step", "", [](R p) { return TableCell::count(p.ops_per_step); }},
      {"step p50", "", [](R p) { return TableCell::number(p.step_us.p50); }},
      {"comm p50", "", [=](R p) { return TableCell::number(decode(p).comm_us.p50); }},
      {"comm p90", "", [=](R p) { return TableCell::number(decode(p).comm_us.p90); }},
      {"gaps measured p50", "", [=](R p) { return TableCell::number(decode(p).gap_measured_us.p50); }},
      {"gaps configured", "", [=](R p) { return TableCell::number(decode(p).gap_expected_us); }},
      {"op p50", "", [](R p) { return TableCell::number(p.op_us.p50); }},
      {"join cost", "", [=](R p) { return times(decode(p).join_cost); }},
      {"comm / back-to-back", "", [=](R p) { return times(decode(p).comm_over_back_to_back); }},
      {"wrong", "",
       [](R p) {
         return p.checked ? TableCell::count(static_cast<double>(p.wrong)) : TableCell("not checked");
       }},
  };
  md += markdown_table(columns, rows);
  return md + "\n";
}

// One STATS figure of a serve level, "-" where the level has no sample.
TableCell stat_cell(const std::optional<Stats>& stats, double Stats::*figure) {
  return stats ? TableCell::number((*stats).*figure) : TableCell("-");
}

// The serve levels as vllm bench serve prints them, one column per concurrency.
std::string render_vllm_metrics(const ServeReport& s) {
  return markdown_table_transposed<ServeLevel>(
      vllm_metric_columns(s.percentiles.empty() ? std::vector<double>{99} : s.percentiles),
      row_pointers(s.levels), "metric (as vllm bench serve names it)",
      [](const ServeLevel& l) { return fmt::format("C={}", l.concurrency); });
}

std::string render_serve(const RunReport& r) {
  std::string md = "## Serving\n\n";
  const ServeReport& s = r.serve;
  if (s.levels.empty()) {
    return md +
           (s.skipped_reason.empty() ? std::string("The serve phase did not run.")
                                     : "The serve phase did not run: " + s.skipped_reason + ".") +
           "\n\n";
  }
  md += fmt::format(
      "Endpoint {} ({} API), model `{}`, prompt about {} tokens, max_tokens {}. TTFT: {}. Token counts: "
      "{}. Times in ms; `-` where no request completed.\n\n",
      markdown_cell(s.endpoint), markdown_cell(s.api), s.model, s.prompt_tokens, s.max_tokens,
      markdown_cell(s.ttft_definition), markdown_cell(s.token_count_source));
  if (s.request_rate > 0) {
    md += fmt::format(
        "Requests arrived as a Poisson process at {:g} per second, at most C in flight: C is a cap, not the number of requests in flight, which is about rate x E2EL when that is below C.\n\n",
        s.request_rate);
  }
  using L = const ServeLevel&;
  const auto rate = [](L l, double figure) {
    return l.completed > 0 ? TableCell::number(figure) : TableCell("-");
  };
  const Columns<ServeLevel> columns = {
      {"concurrency", "", [](L l) { return TableCell::count(l.concurrency); }},
      {"requests", "",
       [](L l) {
         if (!l.interrupted || l.planned_requests <= 0) return TableCell::count(l.requests);
         return TableCell::with_data(fmt::format("{} of {} planned", l.requests, l.planned_requests),
                                     l.requests);
       }},
      {"completed", "", [](L l) { return TableCell::count(l.completed); }},
      {"failed", "", [](L l) { return TableCell::count(l.failed); }},
      {"TTFT p50", "", [](L l) { return stat_cell(l.ttft_ms, &Stats::p50); }},
      {"TPOT p50", "", [](L l) { return tpot_cell(l, &Stats::p50); }},
      {"TPOT p90", "", [](L l) { return tpot_cell(l, &Stats::p90); }},
      {"ITL p50", "", [](L l) { return stat_cell(l.itl_ms, &Stats::p50); }},
      {"E2EL p50", "", [](L l) { return stat_cell(l.e2el_ms, &Stats::p50); }},
      {"steady output tok/s", "",
       [=](L l) { return tpot_per_chunk(l) ? steady_output_cell(l) : rate(l, l.output_tokens_per_s); }},
      {"steady req/s", "", [=](L l) { return rate(l, l.requests_per_s); }},
      {"window", "", [](L l) { return TableCell(l.window_kind); }},
      {"errors", "",
       [](L l) {
         std::vector<std::string> errors;
         for (const auto& [kind, count] : l.errors) errors.push_back(fmt::format("{} {}", kind, count));
         return TableCell(join(errors, ", "));
       }},
  };
  md += markdown_table(with_chunk_sizes(columns, s.levels), row_pointers(s.levels));
  const bool any_level_span = std::any_of(s.levels.begin(), s.levels.end(),
                                          [](const ServeLevel& l) { return l.window_kind == "level_span"; });
  md +=
      "\n*steady output tok/s* and *steady req/s* are over the level's steady window (from the first completion until the first completion not replaced by a new request), where every request slot is busy; the whole-level throughputs of vllm bench serve's table below include ramp-up and tail.";
  if (any_level_span) {
    md +=
        " Where *window* says `level_span`, too few requests completed inside that window and the whole level (first start to last end, ramp-up and tail included) was used instead: those rates are lower than the steady state. "
        "Give more requests per level (`--requests`) for a steady window.";
  }
  md += "\n\n";
  bool any_vllm = false;
  for (const ServeLevel& l : s.levels) any_vllm = any_vllm || !l.vllm_bench_serve.empty();
  if (any_vllm) {
    md +=
        "### Serving, in vllm bench serve's terms\n\nOver each whole level (its *duration*, first start to last end), as `vllm bench serve` reports a run; `-` where there is no sample or the server did not send `usage.prompt_tokens`.\n\n";
    md += render_vllm_metrics(s) + "\n";
  }
  return md;
}

const char* source_mark(EstimateSource source) {
  switch (source) {
    case EstimateSource::measured:
      return "";
    case EstimateSource::interpolated:
      return " *";
    case EstimateSource::extrapolated:
      return " **";
  }
  return "";
}

std::string render_attribution(const RunReport& r) {
  std::string md = "## Decode-time attribution\n\n";
  const std::vector<AttributionRow>& rows = r.attribution;
  if (rows.empty() && r.results.empty() && !r.serve.levels.empty())
    return md +
           "No attribution: this report has serve results but no communication results. "
           "Merge it into a replay of the same model: `k25comm report REPLAY/report.json --serve THIS/report.json`.\n\n";
  if (rows.empty() && std::any_of(r.serve.levels.begin(), r.serve.levels.end(), tpot_per_chunk))
    return md +
           "No attribution: TPOT here is time per chunk, not per token (the server sent no token counts; see the notes).\n\n";
  if (rows.empty()) {
    return md +
           "No attribution: it needs serve results (TPOT per concurrency) and phase results. "
           "Give a serve report of the same model with `k25comm report FILE --serve SERVE.json`.\n\n";
  }
  std::vector<ShareKey> keys;
  for (const AttributionRow& a : rows) {
    for (const CommShare& c : a.comm) {
      if (std::find(keys.begin(), keys.end(), c.key) == keys.end()) keys.push_back(c.key);
    }
  }
  md +=
      "Per concurrency C: the serve TPOT p50 next to the communication of one decode step at T = C tokens (step burst p50, ms) and its share of TPOT. "
      "All-to-All phases use C / ranks tokens per rank (DP attention spreads requests over ranks). "
      "`*` interpolated on log-log axes between measured token counts, `**` extrapolated beyond them.\n\n";
  using A = const AttributionRow&;
  Columns<AttributionRow> columns = {
      {"C", "", [](A a) { return TableCell::count(a.concurrency); }},
      {"T", "", [](A a) { return TableCell::count(a.tokens); }},
      {"TPOT p50", "ms", [](A a) { return TableCell::number(a.tpot_ms); }},
  };
  for (const ShareKey& key : keys) {
    columns.push_back({key.text() + " ms (share)", "", [key](A a) {
                         const CommShare* c = find_share(a, key);
                         if (c == nullptr) return TableCell("-");
                         return TableCell(fmt::format("{} ({:.0f} %{}){}", num(c->comm_ms), c->share * 100.0,
                                                      c->share > 1.0 ? " **above TPOT**" : "",
                                                      source_mark(c->source)));
                       }});
  }
  md += markdown_table(columns, row_pointers(rows));
  const bool above_tpot = std::any_of(rows.begin(), rows.end(), [](A a) {
    return std::any_of(a.comm.begin(), a.comm.end(), [](const CommShare& c) { return c.share > 1.0; });
  });
  if (above_tpot) {
    md +=
        "\n**Shares above 100 %**: a decode step cannot spend longer communicating than the whole step takes. "
        "The communication and serve figures do not describe the same system (other nodes, transport, rank count or settings): these shares are not meaningful.\n";
  }
  return md + "\n";
}

std::string optional_pm(const std::optional<double>& value) {
  return value ? " ± " + num(*value) : "";
}

std::string render_fits(const RunReport& r) {
  std::string md = "## Latency model: latency = alpha + bytes / beta\n\n";
  const std::vector<LatencyFit>& fits = r.fits;
  if (fits.empty()) return md + "No fit: a phase needs at least two measured byte counts.\n\n";
  md +=
      "Least squares over op p50 against bytes per rank per op, on relative errors (each point counts by its percentage miss, not its size) with alpha and beta never negative, so no prediction is; ± is one standard error. "
      "*worst miss* is the largest relative error of the fit at a measured point (all in report.json `fits[].residuals`). "
      "The prediction is ops/step x (alpha + T x bytes per token / beta); "
      "`**` marks a token count outside the measured range (extrapolated).\n\n";
  std::string predicted_head = "predicted step at T=";
  for (std::size_t i = 0; i < prediction_tokens().size(); ++i)
    predicted_head += (i ? " / " : "") + std::to_string(prediction_tokens()[i]);
  using F = const LatencyFit&;
  const Columns<LatencyFit> columns = {
      {"phase", "", [](F f) { return TableCell(to_string(f.phase)); }},
      {"mode", "", [](F f) { return TableCell(to_string(f.mode)); }},
      {"points (tokens)", "",
       [](F f) { return TableCell(fmt::format("{} ({}-{})", f.points, f.min_tokens, f.max_tokens)); }},
      {"alpha", "us", [](F f) { return TableCell(num(f.alpha_us) + optional_pm(f.alpha_stderr_us)); }},
      {"beta", "GB/s",
       [](F f) {
         return TableCell(f.beta_gbps ? num(*f.beta_gbps) + optional_pm(f.beta_stderr_gbps) : "-");
       }},
      {"R²", "", [](F f) { return TableCell(fmt::format("{:.4f}", f.r_squared)); }},
      {"worst miss", "", [](F f) { return TableCell(percent(f.max_relative_error)); }},
      {predicted_head, "us",
       [](F f) {
         std::string predictions;
         for (const int tokens : prediction_tokens()) {
           const StepPrediction p = predict_step(f, tokens);
           predictions += (predictions.empty() ? "" : " / ") + num(p.step_us) + (p.extrapolated ? " **" : "");
         }
         return TableCell(predictions);
       }},
      {"note", "", [](F f) { return TableCell(f.note); }},
  };
  md += markdown_table(columns, row_pointers(fits));
  return md + "\n";
}

std::string render_artifacts(const std::vector<ReportArtifact>& artifacts) {
  if (artifacts.empty()) return {};
  std::string md = "## Plots and timeline\n\n";
  for (const ReportArtifact& a : artifacts) {
    if (a.image) {
      md += fmt::format("### {}\n\n![{}]({})\n\n", a.title, a.title, a.file_name);
    } else {
      md += fmt::format("- [{}]({}): {} (open in https://ui.perfetto.dev or chrome://tracing)\n\n",
                        a.file_name, a.file_name, a.title);
    }
  }
  return md;
}

// Doctor's facts and verdicts of each host whose ranks drove GPUs (none where no GPU was visible).
std::string render_node_diagnosis(const RunReport& r) {
  if (r.topology.nodes.empty()) return {};
  std::string md = "## Node diagnosis\n\n";
  for (const NodeFacts& node : r.topology.nodes) {
    const std::vector<NodeVerdict> verdicts = node_verdicts(node);
    md += fmt::format("### {}\n\n**{}**\n\n", node.host, node_headline(node, verdicts));
    md += node_markdown(node, verdicts, 4) + unseen_markdown(node, 4);
  }
  return md;
}

}  // namespace

std::string render_markdown(const RunReport& report, const std::vector<ReportArtifact>& artifacts) {
  const std::string model = report_model_name(report);
  std::string md =
      fmt::format("# k25comm report{}: {}\n\n", model.empty() ? "" : " of " + model, report_label(report));
  md += render_headline(report);
  md += render_notes(report);
  md += render_system(report);
  md += render_node_diagnosis(report);
  md += render_phase_tables(report);
  md += render_allreduce_backends(report);
  md += render_decode(report);
  md += render_serve(report);
  md += render_attribution(report);
  md += render_live_profile(report);
  md += render_fits(report);
  md += render_artifacts(artifacts);
  return md;
}

}  // namespace k25
