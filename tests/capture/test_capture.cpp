// The capture stage on hand-made Inspector fixtures (tests/capture/data, written by make_fixtures.py to the
// plugin's source): exact sequences, joins over ranks, step detection, statistics, several communicators, a
// missing rank, cut files, sampled records and format errors. Real fixtures from the H200 are still to come.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "../analysis/report_fixtures.hpp"
#include "../analysis/temp_dir.hpp"
#include "capture/analysis/capture_analysis.hpp"
#include "capture/analysis/rank_join.hpp"
#include "capture/analysis/replay_comparison.hpp"
#include "capture/readers/inspector_reader.hpp"
#include "capture/render/capture_csv.hpp"
#include "capture/render/capture_markdown.hpp"
#include "common/error.hpp"
#include "config/config_loader.hpp"

using namespace k25;
using Catch::Matchers::Contains;

namespace {

std::string data(const std::string& name) {
  return std::string(K25_SOURCE_DIR) + "/tests/capture/data/" + name;
}

CaptureSettings smoke_settings() {
  CaptureSettings settings;
  settings.model = capture_model(load_config(std::string(K25_SOURCE_DIR) + "/configs/smoke.yaml").model);
  return settings;
}

const SizeGroup& group(const CommunicatorResult& c, const std::string& kind, std::uint64_t bytes,
                       const std::string& phase) {
  const auto it = std::find_if(c.by_size.begin(), c.by_size.end(), [&](const SizeGroup& g) {
    return g.kind == kind && g.bytes == bytes && g.phase == phase;
  });
  REQUIRE(it != c.by_size.end());
  return *it;
}

const StepSizeGroup& step_group(const StepSummary& s, std::uint64_t bytes, const std::string& phase) {
  const auto it = std::find_if(s.by_size.begin(), s.by_size.end(),
                               [&](const StepSizeGroup& g) { return g.bytes == bytes && g.phase == phase; });
  REQUIRE(it != s.by_size.end());
  return *it;
}

std::string error_of(const std::string& path) {
  try {
    (void)read_inspector_paths({path});
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

std::string error_of_text(const std::string& text) {
  InspectorReader reader;
  try {
    reader.add_text(text, "t.log");
    (void)reader.finish();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

const std::string kHeader = R"("header":{"id":"0x1","rank":0,"n_ranks":1,"nnodes":1})";
const std::string kMeta =
    R"("metadata":{"inspector_output_format_version":"v4.0","git_rev":"","rec_mechanism":"nccl_profiler_interface","dump_timestamp_us":5,"hostname":"h","pid":1})";

}  // namespace

TEST_CASE("capture: two ranks in v4.0: sequence, join, decode step, prefill and per-size statistics") {
  const InspectorCapture capture = read_inspector_paths({data("tp2-v40")});
  REQUIRE(capture.files.size() == 2);
  REQUIRE(capture.streams.size() == 2);
  REQUIRE(capture.ops.size() == 168);
  CHECK(capture.kinds == std::vector<std::string>{"AllReduce", "AllGather"});
  CHECK(capture.files[0].format_versions == std::set<std::string>{"v4.0"});
  CHECK_FALSE(capture.files[0].cut);

  const std::vector<CommunicatorOps> comms = join_ranks(capture);
  REQUIRE(comms.size() == 1);
  const CommunicatorOps& joined = comms[0];
  CHECK(joined.id == "0x7f8c496ae9f661");  // "0x%lx" cut to 16 characters, as the Inspector prints it
  CHECK(joined.ops.size() == 84);
  REQUIRE(joined.sequence.size() == 84);
  // The first op: AllReduce sn 0, rank 0 took 21 us, rank 1 22 us: the op's time is 22, rank 1 the slowest.
  const JoinedOp& first = joined.ops[joined.sequence[0]];
  CHECK(capture.kinds[first.kind] == "AllReduce");
  CHECK(first.sn == 0);
  CHECK(first.exec_us == 22);
  CHECK(first.slowest_rank == 1);
  CHECK(first.ranks_present == 2);
  CHECK(first.busbw_gbps ==
        Approx(0.023273));  // rank 1's record: 512 B / 22 us, AllReduce factor 1 at 2 ranks
  CHECK(capture.kinds[joined.ops[joined.sequence[8]].kind] == "AllGather");

  const CaptureResult r = analyze_capture(capture, smoke_settings());
  REQUIRE(r.communicators.size() == 1);
  const CommunicatorResult& c = r.communicators[0];
  CHECK(c.n_ranks == 2);
  CHECK(c.ranks == std::vector<int>{0, 1});
  CHECK(c.missing_ranks.empty());
  CHECK(c.joined_ops == 84);
  CHECK(c.partial_ops == 0);
  CHECK(c.reference_rank == 0);
  CHECK(c.sequence_order == "file_order");
  CHECK(c.sampling.verdict == "complete");
  CHECK(c.sampling.expected_ops == 84);
  CHECK(c.timing_sources.at("kernel_gpu") == 168);

  const StepSummary& s = c.step;
  REQUIRE(s.found);
  CHECK(s.method == "anchor");
  CHECK(s.anchor == "AllGather");
  CHECK(s.pattern_text == "AllReduce x 8, AllGather x 1");
  CHECK(s.ops_per_step == 9);
  CHECK(s.size_kind == "AllReduce");
  CHECK(s.matches_model == true);
  CHECK(s.decode_steps == 7);
  CHECK(s.prefill_steps == 1);
  CHECK(s.ops_outside_steps == 12);  // the step before the first AllGather and 3 trailing AllReduces
  // Step sizes 512 x 2, 1024 x 2, 2048 x 3, 32768: the jump 2048 -> 32768 (16 x) lies above half of the
  // steps.
  CHECK(s.prefill_above_bytes == 2048);
  CHECK(
      s.prefill_rule ==
      "the largest jump between step sizes above half of the steps: 2048 to 32768 bytes, 16.0 x (at least 4 x)");
  // A decode step at T tokens: AllReduces sum to 173 + 8T, the AllGather takes 16 + T: 198, 207, 225 us.
  REQUIRE(s.decode_comm_us);
  CHECK(s.decode_comm_us->min == 198);
  CHECK(s.decode_comm_us->p50 == 207);
  CHECK(s.decode_comm_us->max == 225);
  CHECK(s.decode_comm_us->mean == Approx(1485.0 / 7));
  REQUIRE(s.prefill_comm_us);
  CHECK(s.prefill_comm_us->p50 == 848);
  const StepSizeGroup& t1 = step_group(s, 512, "decode");
  CHECK(t1.tokens == 1);
  CHECK(t1.steps == 2);
  CHECK(t1.comm_us.p50 == 198);
  CHECK(t1.size_kind_ops == 8);
  CHECK(t1.size_kind_us.p50 == 181);
  CHECK(step_group(s, 2048, "decode").steps == 3);
  CHECK(step_group(s, 32768, "prefill").tokens == 64);
  REQUIRE(s.composition.size() == 2);
  CHECK(s.composition[0].kind == "AllReduce");
  CHECK(s.composition[0].us_per_step.p50 == 189);
  CHECK(s.composition[0].share == Approx(1355.0 / 1485.0));
  CHECK(s.composition[1].us_per_step.p50 == 18);

  const SizeGroup& ar1 = group(c, "AllReduce", 512, "decode");
  CHECK(ar1.tokens == 1);
  CHECK(ar1.count == 16);
  CHECK(ar1.exec_us.min == 22);
  CHECK(ar1.exec_us.p50 == 23);
  CHECK(ar1.exec_us.max == 23);
  CHECK(ar1.exec_us.mean == Approx(22.625));
  CHECK(ar1.slowest_rank == 1);
  CHECK(ar1.slowest_rank_share == Approx(0.625));
  CHECK(group(c, "AllReduce", 512, "outside_steps").count == 8);
  const SizeGroup& trailing = group(c, "AllReduce", 2048, "outside_steps");
  CHECK(trailing.count == 3);
  CHECK(trailing.exec_us.p50 == 26);
  CHECK(group(c, "AllGather", 1000, "outside_steps").count == 1);
  CHECK(group(c, "AllReduce", 32768, "prefill").exec_us.max == 102);

  REQUIRE(r.timelines.size() == 1);
  REQUIRE(r.timelines[0].size() == 84);
  CHECK(r.timelines[0][8].phase == '-');
  CHECK(r.timelines[0][9].phase == 'd');
  CHECK(r.timelines[0][9].step == 0);
  const std::string csv = render_ops_csv(r);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 85);
  CHECK_THAT(csv, Contains("0x7f8c496ae9f661,9,AllReduce,8,512,22,1,2,0,decode,0\n"));

  const nlohmann::json j = r;
  CHECK(j.at("schema_version") == 3);
  CHECK(j.at("communicators")[0].at("step").at("pattern_text") == "AllReduce x 8, AllGather x 1");
  CHECK(j.at("communicators")[0].at("sampling").at("verdict") == "complete");
  CHECK_THAT(render_capture_markdown(r, {}),
             Contains("**Decode step:** AllReduce x 8, AllGather x 1 (9 ops"));
}

TEST_CASE("capture: v4.2 with two communicators, dump_stats drops, P2P and a Broadcast-only communicator") {
  const CaptureResult r = analyze_capture(read_inspector_paths({data("two-comms-v42")}), smoke_settings());
  REQUIRE(r.communicators.size() == 2);
  const CommunicatorResult& tp = r.communicators[0];
  CHECK(tp.name == "tp");
  CHECK(tp.format_versions == std::vector<std::string>{"v4.2"});
  CHECK(tp.dump_markers == 4);
  CHECK(tp.coll_records == 89);
  CHECK(tp.sampling.coll_dropped_reported == 3);
  CHECK(tp.sampling.expected_ops == 46);
  CHECK(tp.sampling.missing_ops == 1);  // AllReduce sn 20: dropped on both ranks
  CHECK(tp.sampling.verdict == "drops");
  CHECK(tp.partial_ops == 1);  // AllReduce sn 21: only rank 0 kept it
  CHECK(tp.reference_rank == 0);
  REQUIRE(tp.step.found);
  CHECK(tp.step.decode_steps == 4);
  CHECK(tp.step.incomplete_segments == 1);
  CHECK(tp.step.prefill_steps == 0);
  CHECK(tp.step.decode_comm_us->p50 == 207);

  const CommunicatorResult& ep = r.communicators[1];
  CHECK(ep.name == "ep");
  CHECK(ep.id == "0xff00ff00ff00ff");
  CHECK(ep.coll_records == 6);
  CHECK(ep.p2p_records == 16);
  CHECK_FALSE(ep.step.found);
  CHECK_THAT(ep.step.reason, Contains("only Broadcast ops"));
  const SizeGroup& broadcast = group(ep, "Broadcast", 4096, "outside_steps");
  CHECK(broadcast.count == 3);
  CHECK(broadcast.exec_us.p50 == 31);
  CHECK(broadcast.exec_us.max == 33);
  REQUIRE(ep.p2p.size() == 2);
  const P2pGroup& send = ep.p2p[0].kind == "Send" ? ep.p2p[0] : ep.p2p[1];
  CHECK(send.records == 8);
  CHECK(send.total_bytes == 88896);
  CHECK(send.ranks == 2);
  CHECK(send.peers == 2);
  CHECK(send.bytes.min == 7408);
  CHECK_THAT(r.notes.front(), Contains("drops"));
}

TEST_CASE("capture: v4.3 markers with payload-only records, verbose timestamps, two ranks in one process") {
  const InspectorCapture capture = read_inspector_paths({data("v43-verbose")});
  REQUIRE(capture.files.size() == 1);
  CHECK(capture.files[0].proxy_records == 1);
  CHECK(capture.files[0].dump_markers == 2);
  CHECK_FALSE(capture.files[0].cut);
  REQUIRE(capture.streams.size() == 2);
  CHECK(capture.ops.front().start_ts == 1767225600000000ULL);
  const CaptureResult r = analyze_capture(capture, smoke_settings());
  REQUIRE(r.communicators.size() == 1);
  const CommunicatorResult& c = r.communicators[0];
  CHECK(c.format_versions == std::vector<std::string>{"v4.3"});
  CHECK(c.sequence_order == "verbose_timestamps");
  CHECK(c.joined_ops == 28);
  REQUIRE(c.step.found);
  CHECK(c.step.decode_steps == 3);
  CHECK(c.step.ops_outside_steps == 1);
  CHECK(c.step.decode_comm_us->p50 == 261);  // 189 + 9 x 8 tokens
  CHECK(step_group(c.step, 4096, "decode").tokens == 8);
  REQUIRE(c.p2p.size() == 1);
  CHECK(c.p2p[0].records == 4);
}

TEST_CASE("capture: a rank without a file: ops joined over the ranks present, flagged partial") {
  const CaptureResult r = analyze_capture(read_inspector_paths({data("missing-rank")}), smoke_settings());
  REQUIRE(r.communicators.size() == 1);
  const CommunicatorResult& c = r.communicators[0];
  CHECK(c.n_ranks == 4);
  CHECK(c.ranks == std::vector<int>{0, 1, 3});
  CHECK(c.missing_ranks == std::vector<int>{2});
  CHECK(c.partial_ops == 19);
  CHECK(c.step.decode_steps == 2);
  CHECK(c.step.partial_steps == 2);
  CHECK(std::any_of(r.notes.begin(), r.notes.end(), [](const std::string& n) {
    return n.find("rank(s) 2 of 4 have no records") != std::string::npos;
  }));
}

TEST_CASE("capture: files still being written: a cut last line, a dump announcing more than the file holds") {
  const InspectorCapture v40 = read_inspector_paths({data("cut-v40")});
  CHECK(v40.files[0].cut);
  CHECK(v40.files[0].coll_records == 19);
  CHECK_THAT(v40.files[0].cut_reason, Contains("line 20 is cut"));
  const CaptureResult r = analyze_capture(v40, smoke_settings());
  CHECK_THAT(r.notes.front(), Contains("gpu-e-pid8100.log: line 20 is cut"));
  CHECK(r.communicators[0].step.decode_steps == 2);

  const InspectorCapture v43 = read_inspector_paths({data("cut-v43")});
  CHECK(v43.files[0].cut);
  CHECK(v43.files[0].coll_records == 20);
  CHECK(v43.files[0].cut_reason == "the dump at line 21 announced 3 records, the file ends after 1");
}

TEST_CASE("capture: the latest-op-per-communicator Inspector (NCCL 2.28.9's copy) is detected as sampled") {
  const CaptureResult r = analyze_capture(read_inspector_paths({data("sampled-2289")}), smoke_settings());
  const CommunicatorResult& c = r.communicators[0];
  CHECK(c.sampling.recorded_ops == 16);
  CHECK(c.sampling.expected_ops == 78);  // AllReduce sn 4..77, AllGather sn 3..6
  CHECK(c.sampling.consecutive_fraction == 0);
  CHECK(c.sampling.verdict == "sampled");
  CHECK_THAT(c.sampling.explanation, Contains("NCCL 2.28.9"));
  CHECK_FALSE(c.step.found);
  CHECK_THAT(c.step.reason, Contains("sampled"));
  CHECK(c.partial_ops == 16);  // each op was sampled on one rank only
}

TEST_CASE("capture: AllReduce-only sequences are cut into steps only with the model's AllReduces per step") {
  const InspectorCapture capture = read_inspector_paths({data("allreduce-only")});
  const CaptureResult without = analyze_capture(capture, CaptureSettings{});
  CHECK_FALSE(without.communicators[0].step.found);
  CHECK_THAT(without.communicators[0].step.reason, Contains("only AllReduce ops"));
  CHECK_THAT(without.communicators[0].step.reason, Contains("--model"));

  const CaptureResult with = analyze_capture(capture, smoke_settings());
  const StepSummary& s = with.communicators[0].step;
  REQUIRE(s.found);
  CHECK(s.method == "model_allreduces_per_step");
  CHECK(s.pattern_text == "AllReduce x 8");
  CHECK(s.decode_steps == 7);
  CHECK(s.ops_outside_steps == 1);  // the check op after the last 4-token burst
  CHECK(step_group(s, 2048, "decode").steps == 2);
}

TEST_CASE("capture: unknown versions, foreign files and malformed records give one clear line (exit 2)") {
  CHECK_THAT(
      error_of(data("unknown-version.log")),
      Contains(
          "unknown-version.log:1: NCCL Inspector output format 'v5.0' is not one this k25comm reads (v4.0, v4.1, v4.2, v4.3)"));
  CHECK_THAT(
      error_of(data("not-inspector.log")),
      Contains("not-inspector.log:1: not NCCL Inspector output: a record without header and metadata"));
  CHECK_THAT(error_of(data("no-such-dir")), Contains("no such file or directory"));
  CHECK_THAT(error_of_text("{\"" + kHeader.substr(1) + "}\n"),
             Contains("t.log:1: not NCCL Inspector output"));
  CHECK_THAT(error_of_text("hello\n{}\n"), Contains("t.log:1: not NCCL Inspector output"));
  CHECK_THAT(error_of_text("{" + kHeader + "," + kMeta +
                           R"(,"coll_perf":{"coll":"AllReduce","coll_sn":1.5}})" + "\n"),
             Contains("t.log:1: 'coll_sn' must be an unsigned integer"));
  CHECK_THAT(error_of_text(R"({"header":{"id":"0x1","rank":3,"n_ranks":2,"nnodes":1},)" + kMeta + "}\n"),
             Contains("'rank' = 3 is outside 0..1"));
  CHECK_THAT(error_of_text(R"({"coll_perf":{"coll":"AllReduce"}})"
                           "\n"),
             Contains("without header and metadata"));
  CHECK_THAT(error_of_text(""), Contains("no NCCL Inspector op records in t.log"));

  // "nan" bandwidths (the writer's NaN) are read; the statistics leave them out.
  InspectorReader reader;
  reader.add_text(
      "{" + kHeader + "," + kMeta +
          R"(,"coll_perf":{"coll":"AllReduce","coll_sn":0,"coll_msg_size_bytes":512,"coll_exec_time_us":0,)"
          R"("coll_timing_source":"kernel_gpu","coll_algobw_gbs":"nan","coll_busbw_gbs":"nan"}})"
          "\n",
      "t.log");
  const CaptureResult r = analyze_capture(reader.finish(), CaptureSettings{});
  CHECK_FALSE(r.communicators[0].by_size[0].busbw_gbps.has_value());

  // In a directory, a foreign *.log is skipped with a note; an unknown version is still an error.
  test::TempDir dir;
  dir.write("a.log", test::read_text(data("tp2-v40/gpu-a-pid4101.log")));
  dir.write("b.log", "NCCL INFO some debug output\n");
  const InspectorCapture mixed = read_inspector_paths({dir.path().string()});
  CHECK(mixed.files.size() == 1);
  REQUIRE(mixed.notes.size() == 1);
  CHECK_THAT(mixed.notes[0], Contains("b.log: not NCCL Inspector output"));
  dir.write("c.log", test::read_text(data("unknown-version.log")));
  CHECK_THAT(error_of(dir.path().string()), Contains("format 'v5.0'"));
}

TEST_CASE(
    "capture: side by side with a replay report and the live attribution from serve levels and --tpot") {
  const CaptureResult capture = analyze_capture(read_inspector_paths({data("tp2-v40")}), smoke_settings());
  RunReport replay = test::empty_report("smoke");
  replay.run.ranks = 2;
  for (const auto& [tokens, mode, op_p50, step_p50] :
       std::vector<std::tuple<int, TimingMode, double, double>>{
           {1, TimingMode::eager, 10, 80}, {1, TimingMode::graph, 5, 40}, {2, TimingMode::eager, 12, 96}}) {
    PhaseResult p = test::allreduce_result(tokens, mode, step_p50);
    p.ranks = 2;
    p.ops_per_step = 8;
    p.bytes_per_op = static_cast<std::uint64_t>(tokens) * 512;
    p.op_us = test::stats_p50_p90(op_p50, op_p50);
    replay.results.push_back(p);
  }
  const ReplayComparison cmp = compare_with_replay(capture, replay, "replay.json");
  const auto row = std::find_if(cmp.ops.begin(), cmp.ops.end(),
                                [](const ReplayOpRow& x) { return x.bytes == 512 && x.phase == "decode"; });
  REQUIRE(row != cmp.ops.end());
  CHECK(row->captured_us_p50 == 23);
  REQUIRE(row->replay.size() == 2);
  CHECK(row->replay[0].mode == "eager");
  CHECK(row->replay[0].ratio == Approx(2.3));
  CHECK(row->replay[1].mode == "graph");
  CHECK(row->replay[1].ratio == Approx(4.6));
  const auto unmatched =
      std::find_if(cmp.ops.begin(), cmp.ops.end(), [](const ReplayOpRow& x) { return x.bytes == 2048; });
  REQUIRE(unmatched != cmp.ops.end());
  CHECK(unmatched->replay.empty());
  CHECK_THAT(cmp.notes.at(0), Contains("AllGather: the replay has no AllGather phase"));
  const auto step =
      std::find_if(cmp.steps.begin(), cmp.steps.end(), [](const ReplayStepRow& x) { return x.tokens == 1; });
  REQUIRE(step != cmp.steps.end());
  CHECK(step->captured_allreduce_us_p50 == 181);
  REQUIRE(step->replay.size() == 2);
  CHECK(step->replay[0].per_op_ratio == Approx(181.0 / 80.0));

  const std::vector<ServeLevel> levels = {test::serve_level(1, 10.0, 100), test::serve_level(8, 12.0, 600)};
  const std::vector<LiveAttributionRow> rows = live_attribution(capture, levels, 20.0, &replay);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].concurrency == 1);
  CHECK(rows[0].captured_steps == 2);
  CHECK(*rows[0].captured_comm_ms == Approx(0.198));
  CHECK(*rows[0].captured_share == Approx(0.0198));
  REQUIRE(rows[0].replay.size() == 2);
  CHECK(rows[0].replay[0].comm_ms == Approx(0.08));
  CHECK_FALSE(rows[1].captured_comm_ms.has_value());
  CHECK(rows[1].captured_reason == "no captured decode step of 8 tokens");
  CHECK(rows[2].tpot_source == "--tpot");
  CHECK(*rows[2].captured_comm_ms == Approx(0.207));
  CHECK(rows[2].captured_steps == 7);
}

namespace {

// One v4.0 collective record of rank `rank` (of `n_ranks`) written by process `pid`.
std::string record_line(int rank, int n_ranks, int pid, const std::string& kind, int sn, int exec_us = 20) {
  return fmt::format(
      R"({{"header":{{"id":"0xabc","rank":{},"n_ranks":{},"nnodes":1}},"metadata":{{"inspector_output_format_version":)"
      R"("v4.0","git_rev":"","rec_mechanism":"nccl_profiler_interface","dump_timestamp_us":1,"hostname":"h","pid":{}}},)"
      R"("coll_perf":{{"coll":"{}","coll_sn":{},"coll_msg_size_bytes":512,"coll_exec_time_us":{},)"
      R"("coll_timing_source":"kernel_gpu","coll_algobw_gbs":0.025600,"coll_busbw_gbs":0.025600}}}})"
      "\n",
      rank, n_ranks, pid, kind, sn, exec_us);
}

}  // namespace

TEST_CASE("capture: duplicate records, a rank written by two processes, a header claiming a million ranks") {
  InspectorReader reader;
  reader.add_text(record_line(0, 2, 1, "AllReduce", 0) + record_line(0, 2, 1, "AllReduce", 1) +
                      record_line(0, 2, 1, "AllReduce", 1, 99),
                  "x.log");
  reader.add_text(record_line(0, 2, 2, "AllReduce", 0), "y.log");
  reader.add_text(record_line(1, 2, 3, "AllReduce", 0, 25), "z.log");
  const CaptureResult r = analyze_capture(reader.finish(), CaptureSettings{});
  REQUIRE(r.communicators.size() == 1);
  const CommunicatorResult& c = r.communicators[0];
  CHECK(c.duplicate_records == 1);  // the second record of (AllReduce, 1) from pid 1: its 99 us is not used
  CHECK(c.joined_ops == 2);
  CHECK(group(c, "AllReduce", 512, "outside_steps").exec_us.max == 25);
  REQUIRE(c.conflicts.size() == 1);
  CHECK(c.conflicts[0] ==
        "rank 0 was written by two processes: kept h:1 (3 records), ignored h:2 (1 records)");
  CHECK(c.rank_host.at(0) == "h:1");
  CHECK(c.partial_ops == 1);  // (AllReduce, 1): rank 1 has no record of it

  InspectorReader huge;
  huge.add_text(record_line(3, 1000000, 4, "AllReduce", 0), "w.log");
  const CaptureResult h = analyze_capture(huge.finish(), CaptureSettings{});
  CHECK(h.communicators[0].missing_rank_count == 999999);
  CHECK(h.communicators[0].missing_ranks.size() == kMaxListedRanks);
  CHECK_THAT(h.notes.at(0), Contains("rank(s) 0, 1, 2, 4, 5"));
  CHECK_THAT(h.notes.at(0), Contains("... (999999 in all) of 1000000"));
}
