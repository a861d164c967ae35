// The analysis stage over a whole report.
#include "analysis/analyze.hpp"

#include <set>

#include <fmt/format.h>

#include "analysis/attribution.hpp"
#include "analysis/headline.hpp"
#include "analysis/join_cost.hpp"
#include "analysis/latency_fit.hpp"
#include "analysis/report_identity.hpp"
#include "analysis/report_notes.hpp"

namespace k25 {
namespace {

// Prefixes of the notes this file derives (removed and made again on every analysis).
constexpr const char* kTokenCounts = "token counts: ";
constexpr const char* kServedModel = "served model: ";
constexpr const char* kPartialLevel = "partial level: ";

// "C=1, 2, 4" of the levels that completed requests and satisfy `pick`; empty when none does.
template <typename Pick>
std::string levels_where(const ServeReport& serve, Pick pick) {
  std::string list;
  for (const ServeLevel& level : serve.levels)
    if (level.completed > 0 && pick(level))
      list += (list.empty() ? "C=" : ", ") + std::to_string(level.concurrency);
  return list;
}

// Where the serve phase's token counts came from, when not from usage; levels cut short by a signal; a served
// model that is not the replayed one.
std::vector<std::string> serve_count_notes(const RunReport& report) {
  std::vector<std::string> notes;
  const ServeReport& serve = report.serve;
  if (const std::string chunked = levels_where(serve, tpot_per_chunk); !chunked.empty())
    notes.push_back(fmt::format(
        "{}at {} the server sent no usage.completion_tokens and the requests did not end by \"length\" with ignore_eos, so output tokens are counted as content chunks: TPOT is time per chunk and output tok/s chunks per second, not tokens (a chunk may carry several tokens); no attribution is made from them. "
        "A server that sends usage (stream_options.include_usage, as vLLM does) or honours ignore_eos gives a per-token TPOT",
        kTokenCounts, chunked));
  if (const std::string forced = levels_where(
          serve, [](const ServeLevel& level) { return level.token_count_source == "max_tokens"; });
      !forced.empty())
    notes.push_back(fmt::format(
        "{}at {} the server sent no usage; every request asked for ignore_eos and ended by \"length\", so its output tokens are max_tokens ({})",
        kTokenCounts, forced, serve.max_tokens));
  for (const ServeLevel& level : serve.levels)
    if (several_tokens_per_chunk(level) && level.tpot_ms && level.itl_ms && level.token_interval_ms)
      notes.push_back(fmt::format(
          "{}at C={} a chunk carries {:.1f} tokens (p50): ITL p50 {:.2f} ms is a gap between chunks, not tokens, and TPOT p50 {:.2f} ms ((E2EL - TTFT) / (tokens - 1), as vLLM defines it) reads under the interval per token after the first chunk, {:.2f} ms, because the first chunk's tokens count in its divisor",
          kTokenCounts, level.concurrency, *level.tokens_per_chunk_p50, level.itl_ms->p50, level.tpot_ms->p50,
          level.token_interval_ms->p50));
  for (const ServeLevel& level : serve.levels)
    if (level.interrupted)
      notes.push_back(fmt::format(
          "{}serve C={} was interrupted: its figures are over the {} of {} requests that completed before the signal",
          kPartialLevel, level.concurrency, level.completed, level.planned_requests));
  if (const std::string served = foreign_served_model(report); !served.empty())
    notes.push_back(fmt::format(
        "{}the endpoint served '{}', the replay is of {}: an attribution sets one model's communication against another's TPOT (a mock, or another server?)",
        kServedModel, served, report_model_name(report)));
  return notes;
}

// Join costs of every other backend's decode rows, each against its own eager rows.
void fill_backend_join_costs(std::vector<PhaseResult>& alternatives) {
  std::set<std::string> backends;
  for (const PhaseResult& r : alternatives) backends.insert(r.backend);
  for (const std::string& backend : backends) {
    std::vector<PhaseResult> rows;
    for (const PhaseResult& r : alternatives)
      if (r.backend == backend) rows.push_back(r);
    fill_join_costs(rows);
    auto filled = rows.begin();
    for (PhaseResult& r : alternatives)
      if (r.backend == backend) r = *filled++;
  }
}

}  // namespace

void analyze_report(RunReport& report) {
  for (auto* results : {&report.results, &report.backend_results})
    for (PhaseResult& result : *results) {
      if (report.topology.link_limit_gbps && *report.topology.link_limit_gbps > 0) {
        result.link_fraction = result.busbw_gbps / *report.topology.link_limit_gbps;
      } else {
        result.link_fraction.reset();
      }
    }
  fill_join_costs(report.results);
  fill_backend_join_costs(report.backend_results);
  const std::vector<AttributionRow> attribution =
      attribute_decode_time(report.results, report.serve.levels, report.run.ranks);
  report.attribution = attribution;
  report.fits = fit_latency_models(report.results);
  refresh_derived_notes(report, attribution);
  std::erase_if(report.run.notes, [](const std::string& note) {
    return note.starts_with(kTokenCounts) || note.starts_with(kServedModel) ||
           note.starts_with(kPartialLevel);
  });
  for (const std::string& note : serve_count_notes(report)) add_note(report.run, note);
  report.headline = report_headline(report, attribution);
  report.backends =
      analyze_backends(report.results, report.backend_results, report.run.transport, attribution);
  for (const std::string& sentence : report.backends.headline)
    report.headline.push_back(with_headline_tags(sentence, headline_tags(report).communication));
  relate_live_steps(report.live_profile, report.serve, attribution);
  if (const auto live = live_headline_sentence(report.live_profile)) report.headline.push_back(*live);
}

}  // namespace k25
