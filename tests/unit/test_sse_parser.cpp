// Unit tests of the serve phase's pure parts: SSE parsing, chunk interpretation, outcome classification,
// level metrics.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "serve/level_metrics.hpp"
#include "serve/request_body.hpp"
#include "serve/sse_parser.hpp"
#include "serve/stream_chunk.hpp"
#include "serve/streaming_response.hpp"

using k25::SseEvent;
using k25::SseParser;

namespace {

std::vector<SseEvent> parse_in_pieces(const std::string& stream, std::size_t piece) {
  SseParser parser;
  std::vector<SseEvent> events;
  for (std::size_t i = 0; i < stream.size(); i += piece)
    parser.feed(std::string_view(stream).substr(i, piece), events);
  return events;
}

std::vector<std::string> data_of(const std::vector<SseEvent>& events) {
  std::vector<std::string> data;
  for (const auto& e : events) data.push_back(e.data);
  return data;
}

}  // namespace

TEST_CASE("sse: one event per read and several events in one read", "[sse]") {
  SseParser parser;
  std::vector<SseEvent> events;
  parser.feed("data: {\"a\":1}\n\n", events);
  REQUIRE(data_of(events) == std::vector<std::string>{"{\"a\":1}"});
  events.clear();
  parser.feed("data: one\n\ndata: two\n\ndata: [DONE]\n\n", events);
  REQUIRE(data_of(events) == std::vector<std::string>{"one", "two", "[DONE]"});
  REQUIRE_FALSE(parser.has_partial_event());
}

TEST_CASE("sse: events split across reads at every byte boundary", "[sse]") {
  const std::string lf = "data: {\"x\":\"hello\"}\n\n: comment\ndata: second\n\ndata: [DONE]\n\n";
  const std::string crlf =
      "data: {\"x\":\"hello\"}\r\n\r\n: comment\r\ndata: second\r\n\r\ndata: [DONE]\r\n\r\n";
  const std::vector<std::string> expected{"{\"x\":\"hello\"}", "second", "[DONE]"};
  for (std::size_t piece = 1; piece <= lf.size(); ++piece) {
    INFO("piece " << piece);
    REQUIRE(data_of(parse_in_pieces(lf, piece)) == expected);
    REQUIRE(data_of(parse_in_pieces(crlf, piece)) == expected);
  }
}

TEST_CASE("sse: CRLF split between two reads counts as one line end", "[sse]") {
  SseParser parser;
  std::vector<SseEvent> events;
  parser.feed("data: a\r", events);
  parser.feed("\n\r", events);
  REQUIRE(data_of(events) == std::vector<std::string>{"a"});
  parser.feed("\ndata: b\r\r", events);  // lone CR line ends are valid too
  REQUIRE(data_of(events) == std::vector<std::string>{"a", "b"});
}

TEST_CASE("sse: comment lines, unknown fields, id and retry are ignored", "[sse]") {
  SseParser parser;
  std::vector<SseEvent> events;
  parser.feed(": keep-alive\n\n:another\nid: 7\nretry: 100\nfoo: bar\ndata: x\n\n", events);
  REQUIRE(data_of(events) == std::vector<std::string>{"x"});
  REQUIRE(events[0].type.empty());
}

TEST_CASE("sse: multi-line data is joined with newlines, event type is kept", "[sse]") {
  SseParser parser;
  std::vector<SseEvent> events;
  parser.feed("event: error\ndata: {\"a\":\ndata:1}\ndata\n\n", events);
  REQUIRE(events.size() == 1);
  REQUIRE(events[0].type == "error");
  REQUIRE(events[0].data == "{\"a\":\n1}\n");
  REQUIRE(k25::interpret_stream_chunk("{\"a\":\n1}\n").kind == k25::ChunkKind::empty);
}

TEST_CASE("sse: only one leading space of a value is removed, empty data is an event", "[sse]") {
  SseParser parser;
  std::vector<SseEvent> events;
  parser.feed("data:  two spaces\n\ndata:\n\n", events);
  REQUIRE(data_of(events) == std::vector<std::string>{" two spaces", ""});
}

TEST_CASE("sse: a stream that ends inside an event leaves a partial event", "[sse]") {
  SseParser parser;
  std::vector<SseEvent> events;
  parser.feed("data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choi", events);
  REQUIRE(events.size() == 1);
  REQUIRE(parser.has_partial_event());
  SseParser ended_after_line;
  ended_after_line.feed("data: x\n", events);  // data line without the blank line
  REQUIRE(ended_after_line.has_partial_event());
}

TEST_CASE("chunk: completions text, chat delta, role-only, usage-only, [DONE]", "[sse]") {
  using k25::ChunkKind;
  using k25::interpret_stream_chunk;
  REQUIRE(interpret_stream_chunk(R"({"choices":[{"index":0,"text":" hi","finish_reason":null}]})").kind ==
          ChunkKind::content);
  REQUIRE(interpret_stream_chunk(R"({"choices":[{"index":0,"delta":{"content":"x"}}]})").kind ==
          ChunkKind::content);
  REQUIRE(interpret_stream_chunk(R"({"choices":[{"index":0,"delta":{"reasoning_content":"x"}}]})").kind ==
          ChunkKind::content);
  const auto role =
      interpret_stream_chunk(R"({"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]})");
  REQUIRE(role.kind == ChunkKind::empty);
  REQUIRE(interpret_stream_chunk(R"({"choices":[{"index":0,"text":"","finish_reason":"length"}]})").kind ==
          ChunkKind::empty);
  const auto usage = interpret_stream_chunk(
      R"({"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":64,"total_tokens":69}})");
  REQUIRE(usage.kind == ChunkKind::empty);
  REQUIRE(usage.completion_tokens == 64);
  REQUIRE_FALSE(interpret_stream_chunk(R"({"choices":[{"text":"a"}],"usage":null})").completion_tokens);
  REQUIRE(interpret_stream_chunk("[DONE]").kind == ChunkKind::done);
}

TEST_CASE("chunk: error events in both shapes, malformed JSON", "[sse]") {
  using k25::ChunkKind;
  const auto nested = k25::interpret_stream_chunk(R"({"error":{"message":"boom","type":"x","code":500}})");
  REQUIRE(nested.kind == ChunkKind::error);
  REQUIRE(nested.error_message == "boom");
  const auto flat = k25::interpret_stream_chunk(R"({"object":"error","message":"flat boom","code":400})");
  REQUIRE(flat.kind == ChunkKind::error);
  REQUIRE(flat.error_message == "flat boom");
  REQUIRE(k25::interpret_stream_chunk(R"({"choices":[{"text":"a")").kind == ChunkKind::malformed);
  REQUIRE(k25::interpret_stream_chunk("[1,2]").kind == ChunkKind::malformed);
  REQUIRE(k25::error_body_message(R"({"error":{"message":"m1"}})") == "m1");
  REQUIRE(k25::error_body_message(R"({"object":"error","message":"m2"})") == "m2");
  REQUIRE(k25::error_body_message(R"({"detail":"m3"})") == "m3");
  REQUIRE(k25::error_body_message("Bad Gateway") == "Bad Gateway");
}

TEST_CASE("chunk: read in one pass, it says what its whole document says", "[sse]") {
  using k25::ChunkKind;
  using k25::interpret_stream_chunk;
  // A key given twice: the last one wins, as in the document.
  CHECK(interpret_stream_chunk(R"({"choices":[{"text":"abc"}],"choices":[{"text":"x"}]})").content_bytes ==
        1);
  CHECK(interpret_stream_chunk(R"({"choices":[{"text":"abc","text":null}]})").kind == ChunkKind::empty);
  CHECK(interpret_stream_chunk(R"({"object":"error","object":"chunk","choices":[]})").kind ==
        ChunkKind::empty);
  CHECK(interpret_stream_chunk(R"({"object":"chunk","object":"error","message":"m"})").kind ==
        ChunkKind::error);
  CHECK(interpret_stream_chunk(R"({"usage":{"completion_tokens":3},"usage":null})").completion_tokens ==
        std::nullopt);
  CHECK(interpret_stream_chunk(R"({"usage":{"completion_tokens":3,"completion_tokens":4.5}})")
            .completion_tokens == std::nullopt);
  // Every choice counts; a later choice's finish_reason wins where it is a string; nested look-alikes do not.
  const auto two = interpret_stream_chunk(
      R"({"choices":[{"text":"ab","finish_reason":"stop"},{"delta":{"content":"c","reasoning":"de"},"finish_reason":null},)"
      R"({"logprobs":{"text":"zzzz","choices":[{"text":"q"}]}},7,[{"text":"r"}]]})");
  CHECK(two.content_bytes == 5);
  CHECK(two.finish_reason == "stop");
  CHECK(interpret_stream_chunk(R"({"x":{"error":1,"usage":{"completion_tokens":9}}})").kind ==
        ChunkKind::empty);
  CHECK_FALSE(interpret_stream_chunk(R"({"x":{"usage":{"completion_tokens":9}}})").completion_tokens);
  // Text counts in bytes of the decoded string; prompt_tokens only as a non-negative count within bounds.
  CHECK(interpret_stream_chunk(R"({"choices":[{"text":"\u00e9"}]})").content_bytes == 2);
  CHECK_FALSE(interpret_stream_chunk(R"({"usage":{"prompt_tokens":-1}})").prompt_tokens);
  CHECK(interpret_stream_chunk(R"({"usage":{"prompt_tokens":7}})").prompt_tokens == 7);
  // Not an object, or not JSON at all.
  CHECK(interpret_stream_chunk(R"("text")").kind == ChunkKind::malformed);
  CHECK(interpret_stream_chunk(R"({"a":1} {"b":2})").kind == ChunkKind::malformed);
  CHECK(interpret_stream_chunk("").kind == ChunkKind::malformed);
}

namespace {

using namespace std::chrono_literals;
const k25::SteadyTime t0{};

k25::TransferEnd transfer_end(k25::TransferEnd::Kind kind, long status) {
  k25::TransferEnd end;
  end.kind = kind;
  end.http_status = status;
  end.message = "libcurl says";
  return end;
}

}  // namespace

TEST_CASE("response: chat stream timestamps content only, usage gives the token count", "[sse]") {
  k25::StreamingResponse response(1, false, t0);
  REQUIRE(response.on_body("data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n", t0 + 1ms));
  REQUIRE(
      response.on_body("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"choi", t0 + 100ms));
  REQUIRE(response.on_body("ces\":[{\"delta\":{\"content\":\"bc\"}}]}\n\n", t0 + 120ms));
  REQUIRE(response.on_body("data: {\"choices\":[],\"usage\":{\"completion_tokens\":3}}\n\ndata: [DONE]\n\n",
                           t0 + 130ms));
  const auto record = response.finish(transfer_end(k25::TransferEnd::Kind::completed, 200), t0 + 131ms);
  REQUIRE(record.ok);
  REQUIRE(record.content_times == std::vector<k25::SteadyTime>{t0 + 100ms, t0 + 120ms});
  REQUIRE(record.output_tokens() == 3);
}

TEST_CASE("response: every outcome is classified", "[sse]") {
  using Kind = k25::TransferEnd::Kind;
  const std::string token = "data: {\"choices\":[{\"text\":\"a\"}]}\n\n";
  auto classify = [&](const std::string& body, Kind kind, long status) {
    k25::StreamingResponse response(1, false, t0);
    if (status == 200)
      (void)response.on_body(body, t0 + 1ms);
    else if (!body.empty())
      response.on_error_body(body);
    return response.finish(transfer_end(kind, status), t0 + 2ms);
  };
  REQUIRE(classify(token + "data: [DONE]\n\n", Kind::completed, 200).ok);
  REQUIRE(classify(token + "data: [DONE]\n\n", Kind::broken, 200).ok);  // cut after [DONE]: nothing lost
  REQUIRE(classify("", Kind::refused, 0).error_class == "connect_refused");
  REQUIRE(classify("", Kind::dns, 0).error_class == "dns");
  REQUIRE(classify("", Kind::connect_timeout, 0).error_class == "connect_timeout");
  REQUIRE(classify(token, Kind::idle_timeout, 200).error_class == "idle_timeout");
  REQUIRE(classify(token, Kind::request_timeout, 200).error_class == "request_timeout");
  REQUIRE(classify(token, Kind::broken, 200).error_class == "stream_cut");
  REQUIRE(classify(token, Kind::completed, 200).error_class == "missing_done");
  REQUIRE(classify(token + "data: {\"error\":{\"message\":\"e\"}}\n\ndata: [DONE]\n\n", Kind::completed, 200)
              .error_class == "stream_error");
  REQUIRE(classify(token + "data: {nope\n\n", Kind::aborted, 200).error_class == "malformed_json");
  const auto http4 = classify(R"({"error":{"message":"bad max_tokens"}})", Kind::completed, 400);
  REQUIRE(http4.error_class == "http_4xx");
  REQUIRE(http4.error_message == "HTTP 400: bad max_tokens");
  const auto http5 = classify(R"({"object":"error","message":"overloaded"})", Kind::completed, 503);
  REQUIRE(http5.error_class == "http_5xx");
  REQUIRE(http5.error_message == "HTTP 503: overloaded");
  REQUIRE(classify("", Kind::completed, 302).error_class == "http_other");
  REQUIRE(classify("", Kind::broken, 0).error_class == "transport");
}

TEST_CASE("level metrics: TTFT, TPOT, ITL, E2EL, tokens, throughput", "[sse]") {
  std::vector<k25::RequestRecord> records;
  for (int i = 0; i < 2; ++i) {
    k25::RequestRecord r;
    r.id = i;
    r.ok = true;
    r.start = t0 + i * 1000ms;
    for (int k = 0; k < 5; ++k) r.content_times.push_back(r.start + 100ms + k * 20ms);
    r.end = r.content_times.back() + 1ms;
    if (i == 1) r.usage_tokens = 10;  // two tokens per chunk
    r.usage_prompt_tokens = 7;
    records.push_back(r);
  }
  k25::RequestRecord failed;
  failed.error_class = "http_5xx";
  failed.error_message = "HTTP 500: x";
  failed.start = failed.end = t0;
  records.push_back(failed);
  const auto level = k25::summarize_level(1, records, {t0, t0 + 2000ms}, {50, 99.5});
  REQUIRE(level.completed == 2);
  REQUIRE(level.failed == 1);
  REQUIRE(level.errors.at("http_5xx") == 1);
  REQUIRE(level.error_examples.at("http_5xx") == "HTTP 500: x");
  REQUIRE(level.token_count_source == "mixed");
  REQUIRE(level.output_tokens == 15);
  REQUIRE(level.ttft_ms->p50 == Approx(100.0));
  REQUIRE(level.e2el_ms->max == Approx(180.0));
  REQUIRE(level.itl_ms->p50 == Approx(20.0));
  REQUIRE(level.tpot_ms->min == Approx(80.0 / 9.0));  // usage: 10 tokens over the same 80 ms
  REQUIRE(level.tpot_ms->max == Approx(20.0));
  REQUIRE(level.window_kind == "steady");
  REQUIRE(level.window_s == Approx(2.0));
  REQUIRE(level.output_tokens_per_s == Approx(7.5));
  REQUIRE(level.requests_per_s == Approx(1.0));

  // vllm bench serve's figures: over the level span, t0 to the second request's end at 1,181 ms.
  REQUIRE(level.duration_s == Approx(1.181));
  REQUIRE(level.input_tokens == 14);
  const auto& vllm = level.vllm_bench_serve;
  REQUIRE(*vllm.at("completed") == 2);
  REQUIRE(*vllm.at("duration") == Approx(1.181));
  REQUIRE(*vllm.at("total_input_tokens") == 14);
  REQUIRE(*vllm.at("total_output_tokens") == 15);
  REQUIRE(*vllm.at("request_throughput") == Approx(2 / 1.181));
  REQUIRE(*vllm.at("output_throughput") == Approx(15 / 1.181));
  REQUIRE(*vllm.at("total_token_throughput") == Approx(29 / 1.181));
  const double tpot_a = 20.0, tpot_b = 80.0 / 9.0;
  REQUIRE(*vllm.at("mean_tpot_ms") == Approx((tpot_a + tpot_b) / 2));
  REQUIRE(*vllm.at("median_tpot_ms") == Approx((tpot_a + tpot_b) / 2));
  REQUIRE(*vllm.at("std_tpot_ms") == Approx((tpot_a - tpot_b) / 2));
  REQUIRE(*vllm.at("p50_tpot_ms") == Approx((tpot_a + tpot_b) / 2));
  REQUIRE(*vllm.at("p99.5_tpot_ms") == Approx(tpot_b + 0.995 * (tpot_a - tpot_b)));
  REQUIRE(*vllm.at("mean_ttft_ms") == Approx(100.0));
  REQUIRE(*vllm.at("median_itl_ms") == Approx(20.0));
  REQUIRE(*vllm.at("p99.5_e2el_ms") == Approx(180.0));
  REQUIRE(vllm.count("p99_tpot_ms") == 0);  // only the percentiles asked for
}

TEST_CASE("a level in which every request failed has no distribution: null, never zero", "[sse]") {
  std::vector<k25::RequestRecord> records(6);
  for (auto& r : records) {
    r.error_class = "http_5xx";
    r.error_message = "HTTP 500: injected server failure";
    r.start = t0;
    r.end = t0 + 5ms;
  }
  const auto level = k25::summarize_level(2, records, {t0, t0 + 5ms});
  REQUIRE(level.completed == 0);
  REQUIRE(level.failed == 6);
  REQUIRE_FALSE(level.ttft_ms.has_value());
  REQUIRE_FALSE(level.tpot_ms.has_value());
  REQUIRE_FALSE(level.itl_ms.has_value());
  REQUIRE_FALSE(level.e2el_ms.has_value());
  REQUIRE_FALSE(level.input_tokens.has_value());
  REQUIRE_FALSE(level.vllm_bench_serve.at("median_tpot_ms").has_value());
  REQUIRE_FALSE(level.vllm_bench_serve.at("total_token_throughput").has_value());
  REQUIRE(*level.vllm_bench_serve.at("completed") == 0);
  REQUIRE(k25::describe_errors(level) == "http_5xx 6 (HTTP 500: injected server failure)");

  const nlohmann::json j = level;
  REQUIRE(j["tpot_ms"].is_null());
  REQUIRE(j["ttft_ms"].is_null());
  REQUIRE(j["vllm_bench_serve"]["p99_tpot_ms"].is_null());
  const auto back = j.get<k25::ServeLevel>();
  REQUIRE_FALSE(back.tpot_ms.has_value());
  REQUIRE(back.failed == 6);
  REQUIRE_FALSE(back.vllm_bench_serve.at("p99_ttft_ms").has_value());

  // schema_version 1 wrote zeros for such a level: read back as no distribution.
  nlohmann::json old = j;
  old["tpot_ms"] = {{"min", 0}, {"p50", 0}, {"p90", 0}, {"p99", 0}, {"max", 0}, {"mean", 0}};
  REQUIRE_FALSE(old.get<k25::ServeLevel>().tpot_ms.has_value());
}

TEST_CASE("request body and URLs", "[sse]") {
  REQUIRE(k25::endpoint_url("http://h:8000", "/v1/completions") == "http://h:8000/v1/completions");
  REQUIRE(k25::endpoint_url("http://h:8000/v1/", "/v1/completions") == "http://h:8000/v1/completions");
  REQUIRE(k25::endpoint_url("http://h/x=1/", "/v1/models") == "http://h/x=1/v1/models");
  k25::ServeSpec spec;
  spec.api = k25::ServeApi::chat;
  spec.max_tokens = 7;
  const auto body = nlohmann::json::parse(k25::streaming_request_body(spec, "m", 3));
  REQUIRE(body["model"] == "m");
  REQUIRE(body["messages"][0]["role"] == "user");
  REQUIRE(body["max_tokens"] == 7);
  REQUIRE(body["stream"] == true);
  REQUIRE(body["stream_options"]["include_usage"] == true);
  REQUIRE(body["ignore_eos"] == true);
  // about one token per word: "Request 3:" then prompt_tokens - 4 words
  const std::string prompt = k25::approximate_prompt(128, 3);
  REQUIRE(std::count(prompt.begin(), prompt.end(), ' ') == 124 + 1);
}

TEST_CASE("usage.prompt_tokens is read where the server sends it, within bounds", "[sse]") {
  const auto usage = k25::interpret_stream_chunk(
      R"({"choices":[],"usage":{"prompt_tokens":130,"completion_tokens":64,"total_tokens":194}})");
  REQUIRE(usage.prompt_tokens == 130);
  REQUIRE(usage.completion_tokens == 64);
  REQUIRE_FALSE(k25::interpret_stream_chunk(R"({"choices":[],"usage":{"completion_tokens":64}})")
                    .prompt_tokens.has_value());
  REQUIRE_FALSE(k25::interpret_stream_chunk(R"({"usage":{"prompt_tokens":-5}})").prompt_tokens.has_value());
  REQUIRE_FALSE(k25::interpret_stream_chunk(R"({"usage":{"prompt_tokens":18446744073709551615}})")
                    .prompt_tokens.has_value());
}
