// Chrome trace-event timeline: one process per trial, one thread per rank, one complete event per op.
#include <catch2/catch.hpp>

#include <set>

#include "analysis/chrome_trace.hpp"

using namespace k25;

namespace {

TrialTimeline two_rank_trial() {
  TrialTimeline trial;
  trial.phase = Phase::allreduce;
  trial.tokens = 16;
  trial.mode = TimingMode::eager;
  trial.rank_hosts = {"node-a", "node-a"};
  trial.ranks = {
      {{0, -1, 0.0, 30.0}, {1, 0, 35.0, 60.0}, {2, 0, 61.0, 90.0}},
      {{0, -1, 2.0, 30.5}, {1, 0, 31.0, 60.5}, {2, 0, 70.0, 90.5}}};  // rank 1 straggles before op 2
  return trial;
}

}  // namespace

TEST_CASE("the trace has one named track per rank and one slice per op", "[trace]") {
  TrialTimeline dispatch = two_rank_trial();
  dispatch.phase = Phase::dispatch;
  dispatch.tokens = 4;
  const nlohmann::json trace = chrome_trace({two_rank_trial(), dispatch});

  REQUIRE(trace.contains("traceEvents"));
  CHECK(trace["displayTimeUnit"] == "ms");
  const nlohmann::json& events = trace["traceEvents"];
  REQUIRE(events.is_array());

  std::set<std::pair<int, int>> tracks;
  std::vector<std::string> process_names, thread_names;
  int slices = 0;
  for (const nlohmann::json& e : events) {
    REQUIRE(e.contains("ph"));
    REQUIRE(e.contains("pid"));
    if (e["ph"] == "M" && e["name"] == "process_name") process_names.push_back(e["args"]["name"]);
    if (e["ph"] == "M" && e["name"] == "thread_name") thread_names.push_back(e["args"]["name"]);
    if (e["ph"] == "X") {
      ++slices;
      REQUIRE(e.contains("tid"));
      REQUIRE(e["ts"].is_number());
      REQUIRE(e["dur"].is_number());
      CHECK(e["dur"].get<double>() >= 0);
      CHECK(e["args"].contains("op_index"));
      CHECK(e["args"].contains("layer"));
      tracks.insert({e["pid"].get<int>(), e["tid"].get<int>()});
    }
  }
  CHECK(slices == 12);  // 2 trials x 2 ranks x 3 ops
  CHECK(tracks.size() == 4);
  CHECK(process_names == std::vector<std::string>{"allreduce T=16 eager", "dispatch T=4 eager"});
  CHECK(thread_names ==
        std::vector<std::string>{"rank 0 (node-a)", "rank 1 (node-a)", "rank 0 (node-a)", "rank 1 (node-a)"});
}

TEST_CASE("slices carry the op's exact start and duration in microseconds", "[trace]") {
  const nlohmann::json trace = chrome_trace({two_rank_trial()});
  std::vector<nlohmann::json> rank1;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e["tid"] == 1) rank1.push_back(e);
  }
  REQUIRE(rank1.size() == 3);
  CHECK(rank1[0]["name"] == "allreduce embedding");
  CHECK(rank1[2]["name"] == "allreduce L0");
  CHECK(rank1[2]["ts"].get<double>() == 70.0);
  CHECK(rank1[2]["dur"].get<double>() == Approx(20.5));
  CHECK(rank1[2]["args"]["op_index"] == 2);
  CHECK(rank1[2]["cat"] == "allreduce");
  // The document is valid JSON text that parses back to the same events.
  CHECK(nlohmann::json::parse(trace.dump()) == trace);
}

TEST_CASE("no trials give an empty but valid trace", "[trace]") {
  const nlohmann::json trace = chrome_trace({});
  CHECK(trace["traceEvents"].empty());
}
