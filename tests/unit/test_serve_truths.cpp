// Issue 31, serve figures that never mislead: throughput counted in chunks says so everywhere, several tokens
// a chunk give tokens per chunk and the interval per token beside TPOT, failed requests tag the headline, an
// interrupted level says its planned count, a serve-only report has no "Host transport" note.
#include <catch2/catch.hpp>

#include <chrono>

#include "../analysis/report_fixtures.hpp"
#include "analysis/analyze.hpp"
#include "report/console_table.hpp"
#include "report/markdown_report.hpp"
#include "report/report_files.hpp"
#include "serve/level_metrics.hpp"

using namespace k25;
using namespace k25::test;
using namespace std::chrono_literals;

namespace {

// The server: TTFT 80 ms, then a chunk every 48 ms, 16 chunks of 4 tokens (12 ms a token); with
// usage (64 tokens) or without (counted in chunks).
RequestRecord four_token_chunks(bool with_usage) {
  RequestRecord r;
  r.ok = true;
  r.start = SteadyTime{};
  for (int i = 0; i < 16; ++i) r.content_times.push_back(r.start + 80ms + i * 48ms);
  r.end = r.content_times.back();
  r.finish_reason = "stop";
  if (with_usage) r.usage_tokens = 64;
  return r;
}

RunReport serve_only(ServeLevel level) {
  RunReport r = empty_report("kimi-k2.5", "host");
  r.serve.ran = true;
  r.serve.levels = {std::move(level)};
  analyze_report(r);
  return r;
}

bool has_note(const RunReport& r, const std::string& note) {
  return std::find(r.run.notes.begin(), r.run.notes.end(), note) != r.run.notes.end();
}

std::string only_headline(const RunReport& r) {
  REQUIRE(r.headline.size() == 1);
  return r.headline[0];
}

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

}  // namespace

TEST_CASE("several tokens a chunk: tokens per chunk and the interval per token beside TPOT, and a note",
          "[serve-truths]") {
  const ServeLevel level = summarize_level(1, {four_token_chunks(true)}, {});
  // 15 gaps of 48 ms: TPOT (vLLM's) 720 / 63, the interval per token after the first chunk 720 / (64 - 4).
  CHECK(level.tpot_ms->p50 == Approx(720.0 / 63.0));
  REQUIRE(level.token_interval_ms);
  CHECK(level.token_interval_ms->p50 == Approx(12.0));
  CHECK(level.tokens_per_chunk_p50 == Approx(4.0));
  CHECK(level.itl_ms->p50 == Approx(48.0));
  CHECK(several_tokens_per_chunk(level));
  const nlohmann::json j = level;
  CHECK(j["tokens_per_chunk_p50"] == 4.0);
  CHECK(j["token_interval_ms"]["p50"].get<double>() == Approx(12.0));
  CHECK(j["output_unit"] == "token");
  const ServeLevel back = j.get<ServeLevel>();
  CHECK(back.token_interval_ms->p50 == Approx(12.0));
  CHECK(*back.tokens_per_chunk_p50 == 4.0);

  const RunReport r = serve_only(level);
  CHECK(
      only_headline(r) ==
      "C=1: TPOT p50 11.4 ms (12.0 ms a token after the first chunk, 4.0 tokens a chunk), TTFT p50 80.0 ms, "
      "80.0 output tok/s (serve only: no communication measured)");
  CHECK(has_note(
      r,
      "token counts: at C=1 a chunk carries 4.0 tokens (p50): ITL p50 48.00 ms is a gap between chunks, "
      "not tokens, and TPOT p50 11.43 ms ((E2EL - TTFT) / (tokens - 1), as vLLM defines it) reads under "
      "the interval per token after the first chunk, 12.00 ms, because the first chunk's tokens count in "
      "its divisor"));
  const std::string md = render_markdown(r);
  CHECK(md.find("| per token after the 1st chunk p50 | tokens a chunk p50 |") != std::string::npos);
  CHECK(md.find("| 11.43 | 11.43 | 12.00 | 4.000 |") != std::string::npos);
  const std::string csv_head = first_line(serve_csv(r));
  CHECK(csv_head.find(",tokens_per_chunk_p50,") != std::string::npos);
  CHECK(csv_head.find(",token_interval_ms.p50,") != std::string::npos);
  CHECK(
      serve_level_line(level, {99})
          .find(" ms (per token after the first chunk p50 12.00 ms, 4.0 tokens a chunk) | ITL mean 48.00") !=
      std::string::npos);

  // One token a chunk: nothing beside TPOT.
  RequestRecord single = four_token_chunks(true);
  single.usage_tokens = 16;
  const ServeLevel one = summarize_level(1, {single}, {});
  CHECK(one.tokens_per_chunk_p50 == Approx(1.0));
  CHECK_FALSE(several_tokens_per_chunk(one));
  CHECK(serve_only(one).headline[0].rfind("C=1: TPOT p50 48.0 ms, TTFT p50 80.0 ms, 20.0 output tok/s", 0) ==
        0);
}

TEST_CASE(
    "counted in chunks: TPOT and output throughput say chunks in headline, report.md, JSON, CSV, console",
    "[serve-truths]") {
  const ServeLevel level = summarize_level(1, {four_token_chunks(false)}, {});
  CHECK(tpot_per_chunk(level));
  CHECK_FALSE(level.tokens_per_chunk_p50);           // unknown: the tokens are the chunks
  CHECK(level.output_tokens_per_s == Approx(20.0));  // 16 chunks in 0.8 s, not 80 tokens/s
  const RunReport r = serve_only(level);
  CHECK(
      only_headline(r) ==
      "C=1: TPOT p50 48.0 ms per chunk, TTFT p50 80.0 ms, 20.0 output chunks/s (serve only: no communication "
      "measured) [counted in chunks, not tokens]");
  const nlohmann::json j = r.serve.levels[0];
  CHECK(j["output_unit"] == "chunk");
  CHECK(j["tpot_per"] == "chunk");
  CHECK(j["tokens_per_chunk_p50"].is_null());
  const std::string csv = serve_csv(r);
  const std::string head = first_line(csv);
  REQUIRE(head.find("output_unit") != std::string::npos);
  CHECK(csv.find(",chunk,") != std::string::npos);
  const std::string md = render_markdown(r);
  CHECK(md.find("| 48.00 per chunk | 48.00 per chunk |") != std::string::npos);  // TPOT p50, p90
  CHECK(md.find("| 20.00 chunks/s |") != std::string::npos);                     // steady output
  CHECK(md.find("| Output token throughput, whole level (tok/s) | 20.00 chunks/s |") != std::string::npos);
  CHECK(md.find("| Total generated tokens | 16 chunks |") != std::string::npos);
  const std::string line = serve_level_line(level, {99});
  CHECK(line.find("TPOT per CHUNK (no token counts, see notes) mean 48.00") != std::string::npos);
  CHECK(line.ends_with(" | output 20.00 chunks/s over the whole level (counted in chunks, not tokens)"));
  CHECK(line.find("tok/s") == std::string::npos);
}

TEST_CASE("a level with failed requests tags the headline sentences that quote it with the count",
          "[serve-truths]") {
  ServeLevel level = serve_level(32, 12.0, 2429.8);
  level.requests = 128;
  level.completed = 122;
  level.failed = 6;
  level.errors = {{"http_5xx", 6}};
  const RunReport r = serve_only(level);
  CHECK(only_headline(r).ends_with(
      "2429.8 output tok/s (serve only: no communication measured) [6 of 128 requests "
      "failed]"));
  // Attributed: the row of that concurrency carries it beside the run's tags.
  RunReport both = empty_report("kimi-k2.5", "pcie");
  both.results = {allreduce_result(1, TimingMode::eager, 5000.0),
                  allreduce_result(32, TimingMode::eager, 6000.0)};
  both.serve.ran = true;
  both.serve.levels = {level, serve_level(1, 12.4, 79.0)};
  analyze_report(both);
  REQUIRE(both.headline.size() == 2);
  CHECK(both.headline[0].find("at C=1 ") != std::string::npos);
  CHECK(both.headline[0].find("failed") == std::string::npos);
  CHECK(both.headline[1].find("at C=32 ") != std::string::npos);
  CHECK(both.headline[1].ends_with(" [6 of 128 requests failed]"));
}

TEST_CASE("an interrupted level says its planned count on the console and in report.md", "[serve-truths]") {
  ServeLevel level = interrupted_level(1, 4, 40);
  CHECK(serve_level_line(level, {99})
            .rfind("serve C=1: 4/40 completed in 0 s (stopped by a signal after 4 requests) | TTFT", 0) == 0);
  CHECK(render_markdown(serve_only(level)).find("| 1 | 4 of 40 planned | 4 | 0 |") != std::string::npos);
  level.interrupted = false;
  CHECK(serve_level_line(level, {99}).rfind("serve C=1: 4/4 completed in", 0) == 0);
  CHECK(render_markdown(serve_only(level)).find("| 1 | 4 | 4 | 0 |") != std::string::npos);
}

TEST_CASE("a serve-only report has no Host transport note, a replay on the host transport has",
          "[serve-truths]") {
  const RunReport r = serve_only(serve_level(1, 12.0, 80.0));
  CHECK(render_markdown(r).find("Host transport:") == std::string::npos);
  RunReport replay = r;
  replay.results = {allreduce_result(1, TimingMode::eager, 6000.0)};
  analyze_report(replay);
  CHECK(render_markdown(replay).find("Host transport: these figures are MPI over host memory") !=
        std::string::npos);
}
