// Issue 21, what a newcomer's run must say about its own figures: where output token counts come from (usage,
// max_tokens of an ignore_eos request that ended by length, or chunks, labelled), the headline's caveat tags,
// a serve-only headline, a served model that is not the replayed one, and an interrupted serve level kept.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>

#include "../analysis/report_fixtures.hpp"
#include "../analysis/temp_dir.hpp"
#include "analysis/analyze.hpp"
#include "analysis/headline.hpp"
#include "analysis/report_identity.hpp"
#include "analysis/report_reader.hpp"
#include "common/interrupt.hpp"
#include "report/markdown_report.hpp"
#include "serve/level_metrics.hpp"
#include "serve/streaming_response.hpp"

using namespace k25;
using namespace k25::test;
using namespace std::chrono_literals;

namespace {

// A stream of `chunks` content chunks of 4 tokens each, 50 ms apart, ending with `finish_reason` and no
// usage.
RequestRecord stream_without_usage(int chunks, const std::string& finish_reason, long long forced_tokens) {
  const SteadyTime t0{};
  StreamingResponse response(1, false, t0, forced_tokens);
  for (int i = 0; i < chunks; ++i)
    REQUIRE(response.on_body("data: {\"choices\":[{\"text\":\"abcd\",\"finish_reason\":null}]}\n\n",
                             t0 + 100ms + i * 50ms));
  REQUIRE(response.on_body(
      "data: {\"choices\":[{\"text\":\"\",\"finish_reason\":\"" + finish_reason + "\"}]}\n\ndata: [DONE]\n\n",
      t0 + 100ms + chunks * 50ms));
  TransferEnd end;
  end.http_status = 200;
  return response.finish(end, t0 + 101ms + chunks * 50ms);
}

RunReport host_run_with_serve(ServeLevel level) {
  RunReport r = empty_report("Kimi-K2.5", "host");
  r.run.hosts = std::vector<std::string>(8, "vm");
  r.run.host_cores = {{"vm", 2}};
  r.results = {allreduce_result(1, TimingMode::eager, 17200.0)};
  r.serve.ran = true;
  r.serve.model = "moonshotai/Kimi-K2.5";
  r.serve.levels = {std::move(level)};
  return r;
}

}  // namespace

TEST_CASE("output tokens: usage, else max_tokens of an ignore_eos request that ended by length, else chunks",
          "[newcomer]") {
  // 16 chunks of 4 tokens: max_tokens 64 asked with ignore_eos, the stream ended by "length".
  const RequestRecord forced = stream_without_usage(16, "length", 64);
  CHECK(forced.token_source() == TokenSource::max_tokens);
  CHECK(forced.output_tokens() == 64);
  // Ended by "stop" (a mock that ignores max_tokens), or ignore_eos not asked: the chunks, and it says so.
  const RequestRecord stopped = stream_without_usage(16, "stop", 64);
  CHECK(stopped.token_source() == TokenSource::chunks);
  CHECK(stopped.output_tokens() == 16);
  CHECK(stream_without_usage(16, "length", 0).token_source() == TokenSource::chunks);

  const ServeLevel forced_level = summarize_level(1, {forced}, {});
  CHECK(forced_level.token_count_source == "max_tokens");
  CHECK_FALSE(tpot_per_chunk(forced_level));
  CHECK(forced_level.tpot_ms->p50 == Approx(750.0 / 63.0));  // 15 gaps of 50 ms over 63 tokens
  const ServeLevel chunk_level = summarize_level(1, {stopped}, {});
  CHECK(chunk_level.token_count_source == "chunks");
  CHECK(chunk_level.chunk_counted == 1);
  CHECK(tpot_per_chunk(chunk_level));
  CHECK(nlohmann::json(chunk_level)["tpot_per"] == "chunk");
  CHECK(nlohmann::json(forced_level)["tpot_per"] == "token");
  // A report from before chunk_counted: its "chunks" source still marks the TPOT per chunk.
  nlohmann::json old = chunk_level;
  old.erase("chunk_counted");
  CHECK(tpot_per_chunk(old.get<ServeLevel>()));
}

TEST_CASE("a TPOT per chunk is labelled in notes and headline and never attributed", "[newcomer]") {
  ServeLevel level = serve_level(1, 50.2, 19.9);
  level.token_count_source = "chunks";
  level.chunk_counted = 8;
  RunReport r = host_run_with_serve(level);
  analyze_report(r);
  CHECK(r.attribution.empty());
  CHECK(has_note_starting(r, "token counts: at C=1 the server sent no usage.completion_tokens"));
  REQUIRE(r.headline.size() == 2);
  CHECK(r.headline[0].rfind("T=1: AllReduce burst 17.2 ms per decode step", 0) == 0);
  CHECK(
      r.headline[1] ==
      "no attribution: TPOT is time per chunk and output throughput chunks per second, not tokens (the server sent no token counts; see the notes) [counted in chunks, not tokens]");
  CHECK(render_markdown(r).find("No attribution: TPOT here is time per chunk") != std::string::npos);
}

TEST_CASE("the headline carries the caveats that change its figures' meaning", "[newcomer]") {
  // The run: 8 ranks on 2 cores, host transport, a mock server that served "gpt-5.2".
  RunReport r = host_run_with_serve(serve_level(1, 50.2, 19.9));
  r.serve.model = "gpt-5.2";
  analyze_report(r);
  REQUIRE(r.headline.size() == 1);
  CHECK(r.headline[0] ==
        "AllReduce burst = 34.3 % of TPOT at C=1 (17.2 ms of 50.2 ms, eager) [host transport; "
        "oversubscribed: 8 ranks on 2 cores; served model gpt-5.2, not Kimi-K2.5]");
  // README.md's example is this headline as the console prints it (ConsoleTable::print_note).
  CHECK(read_text(std::string(K25_SOURCE_DIR) + "/README.md")
            .find("\n    # headline: " + r.headline[0] + "\n") != std::string::npos);
  CHECK(has_note_starting(r, "served model: the endpoint served 'gpt-5.2', the replay is of Kimi-K2.5"));

  // The served id of the same model under its organisation's name is no mismatch.
  r.serve.model = "moonshotai/Kimi-K2.5";
  analyze_report(r);
  CHECK(foreign_served_model(r).empty());
  CHECK_FALSE(has_note_starting(r, "served model: "));
  CHECK(r.headline[0].find("served model") == std::string::npos);

  // One rank, emulated ranks, an incomplete run.
  RunReport one = empty_report("Kimi-K2.5", "host");
  one.run.ranks = 1;
  one.run.complete = false;
  one.results = {allreduce_result(1, TimingMode::eager, 17.0)};
  analyze_report(one);
  REQUIRE(one.headline.size() == 1);
  CHECK(one.headline[0].ends_with("[host transport; one rank: nothing crosses a link; incomplete run]"));
  RunReport emulated = empty_report("Kimi-K2.5", "emulated");
  emulated.results = {allreduce_result(1, TimingMode::eager, 17.0)};
  analyze_report(emulated);
  CHECK(emulated.headline[0].ends_with(" [emulated ranks]"));
  RunReport delayed = empty_report();
  delayed.results = {allreduce_result(1, TimingMode::eager, 6810.0)};
  delayed.run.config["transport"] = {{"inject_delay", "1:500"}};
  analyze_report(delayed);
  CHECK(delayed.headline[0].ends_with(" [test mode: injected delay]"));
  delayed.run.config["transport"] = nlohmann::json::array({1, 2});  // a hand-made report: no tag, no throw
  analyze_report(delayed);
  CHECK(delayed.headline[0].find('[') == std::string::npos);
  // A clean PCIe run has no tags at all.
  RunReport clean = empty_report();
  clean.results = {allreduce_result(1, TimingMode::eager, 6810.0)};
  analyze_report(clean);
  CHECK(clean.headline[0] == "T=1: AllReduce burst 6.81 ms per decode step of 1 token (122 ops, eager)");
}

TEST_CASE("a serve-only report has a headline of its serve figures and no attribution rows", "[newcomer]") {
  RunReport r = empty_report("Kimi-K2.5", "host");
  r.serve.ran = true;
  r.serve.model = "kimi-k2.5";
  r.serve.levels = {serve_level(1, 12.4, 79.0), serve_level(8, 14.0, 560.0)};
  analyze_report(r);
  CHECK(r.attribution.empty());
  REQUIRE(r.headline.size() == 2);
  CHECK(r.headline[0] ==
        "C=1: TPOT p50 12.4 ms, TTFT p50 40.0 ms, 79.0 output tok/s (serve only: no communication measured)");
  const std::string md = render_markdown(r);
  CHECK(md.find("## Headline\n\n- C=1: TPOT p50 12.4 ms") != std::string::npos);
  CHECK(md.find("this report has serve results but no communication results") != std::string::npos);
  CHECK(md.find("| C | T | TPOT p50 ms |") == std::string::npos);
}

TEST_CASE("an interrupted serve level is kept, marked, and read back", "[newcomer]") {
  const ServeLevel level = interrupted_level(4, 3, 16);
  const nlohmann::json j = level;
  CHECK(j["interrupted"] == true);
  CHECK(j["planned_requests"] == 16);
  const ServeLevel back = j.get<ServeLevel>();
  CHECK(back.interrupted);
  CHECK(back.planned_requests == 16);
  CHECK_FALSE(nlohmann::json(serve_level(1, 1.0, 1.0)).contains("interrupted"));

  RunReport r = host_run_with_serve(level);
  analyze_report(r);
  CHECK(has_note_starting(
      r,
      "partial level: serve C=4 was interrupted: its figures are over the 3 of 16 requests that completed"));
}

TEST_CASE("an interruption reads as the user's", "[newcomer]") {
  CHECK(interruption_reason(2) == "interrupted by Ctrl-C (SIGINT)");
  CHECK(
      interruption_reason(15) ==
      "interrupted by SIGTERM: Ctrl-C under mpirun (which passes it on as SIGTERM), a kill, or the batch system");
}
