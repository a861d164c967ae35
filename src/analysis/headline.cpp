// Headline sentences from the attribution or, without serve results, from the phase results.
#include "analysis/headline.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "analysis/report_identity.hpp"
#include "common/count_noun.hpp"

namespace k25 {
namespace {

// Three significant digits, trailing zeros kept ("7.00 ms", "12.4 ms", "0.199 ms"); whole ms from 100 up.
std::string ms(double value) {
  return value >= 100 ? fmt::format("{:.0f} ms", value) : fmt::format("{:#.3g} ms", value);
}

// Shares above 100 % cannot describe one system (see report_notes): the sentence says so.
std::string above_tpot(const CommShare& share) {
  return share.share > 1.0 ? " [above TPOT: not one system, see the notes]" : "";
}

const char* estimate_words(EstimateSource source) {
  switch (source) {
    case EstimateSource::measured:
      return "";
    case EstimateSource::interpolated:
      return ", interpolated";
    case EstimateSource::extrapolated:
      return ", extrapolated";
  }
  return "";
}

std::string mode_of(const CommShare& share) {
  return to_string(share.key.mode);
}

std::string per_rank(double tokens) {
  return tokens == 1.0 ? "1 token per rank" : fmt::format("{:g} tokens per rank", tokens);
}

std::string attribution_sentence(const AttributionRow& row) {
  std::vector<std::string> parts;
  if (const CommShare* allreduce = graph_else_eager_share(row, "allreduce"))
    parts.push_back(fmt::format("AllReduce burst = {:.1f} % of TPOT at C={} ({} of {}, {}{}){}",
                                allreduce->share * 100.0, row.concurrency, ms(allreduce->comm_ms),
                                ms(row.tpot_ms), mode_of(*allreduce), estimate_words(allreduce->source),
                                above_tpot(*allreduce)));
  if (const CommShare* alltoall = graph_else_eager_share(row, "alltoall")) {
    const std::string where = parts.empty() ? fmt::format(" of TPOT at C={}", row.concurrency) : "";
    parts.push_back(fmt::format("All-to-All = {:.1f} %{} ({} dispatch + combine at {}, {}{}){}",
                                alltoall->share * 100.0, where, ms(alltoall->comm_ms),
                                per_rank(alltoall->tokens), mode_of(*alltoall),
                                estimate_words(alltoall->source), above_tpot(*alltoall)));
  }
  if (parts.empty()) return {};
  std::string sentence = parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i) sentence += ", " + parts[i];
  return sentence;
}

// "eager", "graph", or "graph, padded to 4 tokens" where graph mode measured the capture size above T.
std::string mode_words(const PhaseResult& r) {
  if (r.tokens == r.requested_tokens) return to_string(r.mode);
  return fmt::format("{}, padded to {}", to_string(r.mode), count_noun(r.tokens, "token"));
}

const PhaseResult* find_result(const std::vector<PhaseResult>& results, Phase phase, int tokens,
                               TimingMode mode) {
  const auto it = std::find_if(results.begin(), results.end(), [&](const PhaseResult& r) {
    return r.phase == phase && r.requested_tokens == tokens && r.mode == mode;
  });
  return it == results.end() ? nullptr : &*it;
}

const PhaseResult* preferred_result(const std::vector<PhaseResult>& results, Phase phase, int tokens) {
  if (const PhaseResult* graph = find_result(results, phase, tokens, TimingMode::graph)) return graph;
  return find_result(results, phase, tokens, TimingMode::eager);
}

std::string tokens_sentence(const std::vector<PhaseResult>& results, int tokens) {
  std::vector<std::string> parts;
  if (const PhaseResult* allreduce = preferred_result(results, Phase::allreduce, tokens))
    parts.push_back(fmt::format("AllReduce burst {} per decode step of {} ({} ops, {})",
                                ms(allreduce->step_us.p50 / 1000.0), count_noun(tokens, "token"),
                                allreduce->ops_per_step, mode_words(*allreduce)));
  for (Phase phase : {Phase::allgather, Phase::reducescatter})
    if (const PhaseResult* other = preferred_result(results, phase, tokens))
      parts.push_back(fmt::format("{} {} ({}, {})", kind_info(other->kind()).title,
                                  ms(other->step_us.p50 / 1000.0), count_noun(other->ops_per_step, "op"),
                                  mode_words(*other)));
  const PhaseResult* dispatch = preferred_result(results, Phase::dispatch, tokens);
  const PhaseResult* combine = preferred_result(results, Phase::combine, tokens);
  if (dispatch && combine && dispatch->mode == combine->mode)
    parts.push_back(fmt::format("All-to-All {} (dispatch {} + combine {}) at {} ({})",
                                ms((dispatch->step_us.p50 + combine->step_us.p50) / 1000.0),
                                ms(dispatch->step_us.p50 / 1000.0), ms(combine->step_us.p50 / 1000.0),
                                per_rank(tokens), mode_words(*dispatch)));
  if (parts.empty()) return {};
  std::string sentence = fmt::format("T={}: {}", tokens, parts[0]);
  for (std::size_t i = 1; i < parts.size(); ++i) sentence += "; " + parts[i];
  return sentence;
}

// "6.81 ms at T=1 to 9.00 ms at T=16 (122 ops, eager)" of one phase's step between two token counts.
std::string step_range(const PhaseResult& low, const PhaseResult& high, const std::string& low_at,
                       const std::string& high_at, const std::string& what) {
  const std::string modes = mode_words(low) == mode_words(high)
                                ? mode_words(low)
                                : fmt::format("{} to {}", mode_words(low), mode_words(high));
  return fmt::format("{} at {} to {} at {} ({}{})", ms(low.step_us.p50 / 1000.0), low_at,
                     ms(high.step_us.p50 / 1000.0), high_at, what, modes);
}

// The dispatch + combine of one token count as one PhaseResult-like step (their step p50s added).
std::optional<PhaseResult> alltoall_step(const std::vector<PhaseResult>& results, int tokens) {
  const PhaseResult* dispatch = preferred_result(results, Phase::dispatch, tokens);
  const PhaseResult* combine = preferred_result(results, Phase::combine, tokens);
  if (!dispatch || !combine || dispatch->mode != combine->mode) return std::nullopt;
  PhaseResult both = *dispatch;
  both.step_us.p50 = dispatch->step_us.p50 + combine->step_us.p50;
  return both;
}

// Without serve results, the one headline sentence over the measured token counts: "AllReduce burst per
// decode step 6.81 ms at T=1 to 9.00 ms at T=16 (122 ops, eager), All-to-All 1.49 ms at 1 token per rank to
// 2.10 ms at 16 tokens per rank (dispatch + combine, eager); 2 token counts, one line each". One count: its
// sentence (tokens_sentence).
std::string communication_summary(const std::vector<PhaseResult>& results) {
  std::set<int> counts;
  for (const PhaseResult& r : results) counts.insert(r.requested_tokens);
  if (counts.empty()) return {};
  const int low = *counts.begin(), high = *counts.rbegin();
  if (counts.size() == 1) return tokens_sentence(results, low);
  std::vector<std::string> parts;
  const PhaseResult* allreduce_low = preferred_result(results, Phase::allreduce, low);
  const PhaseResult* allreduce_high = preferred_result(results, Phase::allreduce, high);
  if (allreduce_low && allreduce_high)
    parts.push_back("AllReduce burst per decode step " +
                    step_range(*allreduce_low, *allreduce_high, fmt::format("T={}", low),
                               fmt::format("T={}", high),
                               fmt::format("{} ops, ", allreduce_low->ops_per_step)));
  const std::optional<PhaseResult> alltoall_low = alltoall_step(results, low);
  const std::optional<PhaseResult> alltoall_high = alltoall_step(results, high);
  if (alltoall_low && alltoall_high)
    parts.push_back(fmt::format(
        "{}All-to-All {}", parts.empty() ? "per decode step: " : "",
        step_range(*alltoall_low, *alltoall_high, per_rank(low), per_rank(high), "dispatch + combine, ")));
  if (parts.empty()) return tokens_sentence(results, low);
  std::string sentence = parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i) sentence += ", " + parts[i];
  return sentence +
         fmt::format("; {}, one line each", count_noun(static_cast<long long>(counts.size()), "token count"));
}

// The effective config's transport.inject_delay is set (a test mode: one rank late at every trial).
bool injected_delay(const nlohmann::json& config) {
  if (!config.is_object()) return false;
  const auto transport = config.find("transport");
  if (transport == config.end() || !transport->is_object()) return false;
  const auto delay = transport->find("inject_delay");
  return delay != transport->end() && delay->is_string() && !delay->get_ref<const std::string&>().empty();
}

}  // namespace

std::vector<std::string> headline_sentences(const std::vector<PhaseResult>& results,
                                            const std::vector<AttributionRow>& attribution) {
  std::vector<std::string> sentences;
  for (const AttributionRow& row : attribution)
    if (std::string sentence = attribution_sentence(row); !sentence.empty()) sentences.push_back(sentence);
  if (!sentences.empty()) return sentences;
  std::set<int> token_counts;
  for (const PhaseResult& r : results) token_counts.insert(r.requested_tokens);
  for (const int tokens : token_counts)
    if (std::string sentence = tokens_sentence(results, tokens); !sentence.empty())
      sentences.push_back(sentence);
  return sentences;
}

std::vector<std::string> per_token_count_lines(const RunReport& report) {
  if (!report.attribution.empty()) return {};
  std::vector<std::string> lines = headline_sentences(report.results, {});
  if (lines.size() <= 1) return {};  // the headline is that sentence
  return lines;
}

HeadlineTags headline_tags(const RunReport& report) {
  HeadlineTags tags;
  const RunInfo& run = report.run;
  if (!report.results.empty() || !report.backend_results.empty()) {
    if (report.topology.kind == "host") tags.communication.push_back("host transport");
    if (report.topology.kind == "emulated") tags.communication.push_back("emulated ranks");
    if (run.ranks == 1) tags.communication.push_back("one rank: nothing crosses a link");
    for (const OversubscribedHost& host : oversubscribed_hosts(run))
      tags.communication.push_back(fmt::format("oversubscribed: {} on {}", count_noun(host.ranks, "rank"),
                                               count_noun(host.cores, "core")));
    if (injected_delay(run.config)) tags.communication.push_back("test mode: injected delay");
  }
  if (!report.serve.levels.empty()) {
    if (const std::string served = foreign_served_model(report); !served.empty())
      tags.serving.push_back(fmt::format("served model {}, not {}", served, report_model_name(report)));
  }
  if (!run.complete) {
    tags.communication.push_back("incomplete run");
    tags.serving.push_back("incomplete run");
  }
  return tags;
}

std::vector<std::string> level_tags(const ServeLevel& level) {
  std::vector<std::string> tags;
  if (tpot_per_chunk(level)) tags.push_back(kCountedInChunksTag);
  if (level.failed > 0)
    tags.push_back(fmt::format("{} of {} failed", level.failed, count_noun(level.requests, "request")));
  return tags;
}

namespace {

// TPOT, with the interval per token beside it where chunks carry several tokens: "TPOT p50 11.4 ms (12.0 ms
// a token after the first chunk, 4.0 tokens a chunk)", or "TPOT p50 48.0 ms per chunk" where the tokens are
// counted in chunks.
std::string tpot_words(const ServeLevel& level) {
  std::string words = "TPOT p50 " + ms(level.tpot_ms->p50);
  if (tpot_per_chunk(level)) return words + " per chunk";
  if (several_tokens_per_chunk(level) && level.token_interval_ms)
    words += fmt::format(" ({} a token after the first chunk, {:.1f} tokens a chunk)",
                         ms(level.token_interval_ms->p50), *level.tokens_per_chunk_p50);
  return words;
}

// "C=1: TPOT p50 12.4 ms, TTFT p50 40.0 ms, 79.0 output tok/s (serve only: no communication measured)";
// counted in chunks, the throughput is "output chunks/s".
std::string serve_sentence(const ServeLevel& level) {
  return fmt::format("C={}: {}, TTFT p50 {}, {:.1f} output {}/s (serve only: no communication measured)",
                     level.concurrency, tpot_words(level), ms(level.ttft_ms->p50), level.output_tokens_per_s,
                     tpot_per_chunk(level) ? "chunks" : "tok");
}

std::vector<std::string> joined(std::vector<std::string> first, const std::vector<std::string>& more) {
  for (const std::string& tag : more)
    if (std::find(first.begin(), first.end(), tag) == first.end()) first.push_back(tag);
  return first;
}

const ServeLevel* level_at(const ServeReport& serve, int concurrency) {
  for (const ServeLevel& level : serve.levels)
    if (level.concurrency == concurrency) return &level;
  return nullptr;
}

}  // namespace

std::string with_headline_tags(std::string sentence, const std::vector<std::string>& tags) {
  if (tags.empty()) return sentence;
  std::string joined;
  for (const std::string& tag : tags) joined += (joined.empty() ? "" : "; ") + tag;
  return sentence + " [" + joined + "]";
}

std::vector<std::string> report_headline(const RunReport& report,
                                         const std::vector<AttributionRow>& attribution) {
  const HeadlineTags tags = headline_tags(report);
  std::vector<std::string> headline;
  if (report.results.empty()) {  // serve only: the serve figures alone
    for (const ServeLevel& level : report.serve.levels)
      if (level.completed > 0 && level.tpot_ms && level.ttft_ms)
        headline.push_back(
            with_headline_tags(serve_sentence(level), joined(level_tags(level), tags.serving)));
    return headline;
  }
  const std::vector<std::string> both = joined(tags.communication, tags.serving);
  for (const AttributionRow& row : attribution) {
    std::string sentence = attribution_sentence(row);
    if (sentence.empty()) continue;
    const ServeLevel* level = level_at(report.serve, row.concurrency);
    headline.push_back(
        with_headline_tags(std::move(sentence), level ? joined(level_tags(*level), both) : both));
  }
  if (!headline.empty()) return headline;
  if (std::string summary = communication_summary(report.results); !summary.empty())
    headline.push_back(with_headline_tags(std::move(summary), tags.communication));
  if (std::any_of(report.serve.levels.begin(), report.serve.levels.end(),
                  [](const ServeLevel& l) { return l.completed > 0 && tpot_per_chunk(l); }))
    headline.push_back(with_headline_tags(
        "no attribution: TPOT is time per chunk and output throughput chunks per second, not tokens (the server sent no token counts; see the notes)",
        joined({kCountedInChunksTag}, tags.serving)));
  return headline;
}

}  // namespace k25
