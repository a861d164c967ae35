// Chrome trace-event timeline: per point, each rank's timed trial of the step, its host enqueue, and the
// per-op pass trial op by op, on named tracks.
#include <catch2/catch.hpp>

#include <map>
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
  trial.ops_per_step = 3;
  trial.step_trial = 4;
  // rank 1 arrives 40 us late; peers wait for it, so its burst is the shortest and all end together
  trial.step = {StepSpan{1.0, 140.0, 12.5, 3 * 229376}, StepSpan{41.0, 100.0, 11.0, 3 * 229376}};
  trial.op_trial = 2;
  trial.ranks = {{{0, -1, 0.0, 30.0, 229376}, {1, 0, 35.0, 60.0, 229376}, {2, 0, 61.0, 90.0, 229376}},
                 {{0, -1, 2.0, 30.5, 229376}, {1, 0, 31.0, 60.5, 229376}, {2, 0, 70.0, 90.5, 229376}}};
  return trial;
}

std::map<int, std::string> track_names(const nlohmann::json& trace, int pid) {
  std::map<int, std::string> names;
  for (const nlohmann::json& e : trace["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == pid) names[e["tid"]] = e["args"]["name"];
  return names;
}

std::vector<nlohmann::json> slices_on(const nlohmann::json& trace, int pid, int tid) {
  std::vector<nlohmann::json> found;
  for (const nlohmann::json& e : trace["traceEvents"])
    if (e["ph"] == "X" && e["pid"] == pid && e["tid"] == tid) found.push_back(e);
  return found;
}

}  // namespace

TEST_CASE("each point has, per rank, a timed-trial track, an enqueue track and a per-op pass track",
          "[trace]") {
  TrialTimeline dispatch = two_rank_trial();
  dispatch.phase = Phase::dispatch;
  dispatch.tokens = 4;
  const nlohmann::json trace = chrome_trace({two_rank_trial(), dispatch});

  CHECK(trace["displayTimeUnit"] == "ms");
  std::vector<std::string> process_names;
  int slices = 0;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") process_names.push_back(e["args"]["name"]);
    if (e["ph"] == "X") {
      ++slices;
      CHECK(e["dur"].get<double>() >= 0);
    }
  }
  CHECK(slices == 2 * 2 * (1 + 1 + 3));  // points x ranks x (burst + enqueue + 3 ops)
  CHECK(process_names == std::vector<std::string>{"allreduce T=16 eager", "dispatch T=4 eager"});
  CHECK(track_names(trace, 1) ==
        std::map<int, std::string>{{0, "rank 0 (node-a): timed trial #4"},
                                   {1, "rank 0 (node-a): enqueue (host)"},
                                   {2, "rank 0 (node-a): per-op pass trial #2 (each op timed alone)"},
                                   {3, "rank 1 (node-a): timed trial #4"},
                                   {4, "rank 1 (node-a): enqueue (host)"},
                                   {5, "rank 1 (node-a): per-op pass trial #2 (each op timed alone)"}});
}

TEST_CASE("the timed trial's burst starts at the rank's arrival and lasts its measured step", "[trace]") {
  const nlohmann::json trace = chrome_trace({two_rank_trial()});
  const auto late = slices_on(trace, 1, 3);
  REQUIRE(late.size() == 1);
  CHECK(late[0]["name"] == "allreduce burst (3 ops)");
  CHECK(late[0]["ts"].get<double>() == 41.0);
  CHECK(late[0]["dur"].get<double>() == 100.0);
  CHECK(late[0]["args"]["bytes"] == 3 * 229376);
  CHECK(late[0]["args"]["trial"] == 4);
  const auto enqueue = slices_on(trace, 1, 4);
  REQUIRE(enqueue.size() == 1);
  CHECK(enqueue[0]["dur"].get<double>() == 11.0);
}

TEST_CASE("per-op slices carry the op's exact start, duration and bytes", "[trace]") {
  const nlohmann::json trace = chrome_trace({two_rank_trial()});
  const auto rank1 = slices_on(trace, 1, 5);
  REQUIRE(rank1.size() == 3);
  CHECK(rank1[0]["name"] == "allreduce embedding");
  CHECK(rank1[2]["name"] == "allreduce L0");
  CHECK(rank1[2]["ts"].get<double>() == 70.0);
  CHECK(rank1[2]["dur"].get<double>() == Approx(20.5));
  CHECK(rank1[2]["args"]["op_index"] == 2);
  CHECK(rank1[2]["args"]["bytes"] == 229376);
  CHECK(rank1[2]["cat"] == "allreduce");
  // The document is valid JSON text that parses back to the same events.
  CHECK(nlohmann::json::parse(trace.dump()) == trace);
}

TEST_CASE("a transport whose launch is the step has no enqueue track, graph mode has no per-op track",
          "[trace]") {
  TrialTimeline trial = two_rank_trial();
  for (StepSpan& step : trial.step) step.launch_us.reset();
  trial.ranks.clear();
  trial.op_trial = -1;
  const nlohmann::json trace = chrome_trace({trial});
  CHECK(track_names(trace, 1) == std::map<int, std::string>{{0, "rank 0 (node-a): timed trial #4"},
                                                            {3, "rank 1 (node-a): timed trial #4"}});
}

TEST_CASE("no trials give an empty but valid trace", "[trace]") {
  const nlohmann::json trace = chrome_trace({});
  CHECK(trace["traceEvents"].empty());
}
