// Profiler traces in the capture stage: the fixtures make_trace_fixtures.py writes (Kineto JSON plain and
// gzip, Nsight Systems SQLite), read and analysed, against figures worked out by hand from their layouts (the
// docstrings there give each timeline); the kernel-class table, the step-mark names, the interval arithmetic,
// and every bad input's one-line message.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <string>

#include "../analysis/temp_dir.hpp"
#include "capture/analysis/capture_analysis.hpp"
#include "capture/analysis/intervals.hpp"
#include "capture/analysis/kernel_classes.hpp"
#include "capture/analysis/trace_analysis.hpp"
#include "capture/model/step_marks.hpp"
#include "capture/readers/capture_inputs.hpp"
#include "capture/readers/input_formats.hpp"
#include "capture/readers/json_tokens.hpp"
#include "capture/readers/kineto_reader.hpp"
#include "capture/render/capture_markdown.hpp"
#include "capture/render/trace_headline.hpp"
#include "capture/render/trace_markdown.hpp"
#include "capture/trace_files.hpp"
#include "common/error.hpp"
#include "config/config_loader.hpp"

using namespace k25;
using Catch::Matchers::Contains;

namespace {

std::string fixture(const std::string& name) {
  return std::string(K25_TRACE_FIXTURES) + "/" + name;
}

const KernelClassifier& shipped() {
  static const KernelClassifier classifier({std::string(K25_SOURCE_DIR) + "/data/kernel-classes.yaml"});
  return classifier;
}

std::optional<CaptureModel> model_of(const std::string& config) {
  const RunConfig loaded = load_config(std::string(K25_SOURCE_DIR) + "/configs/" + config);
  CaptureModel m = capture_model(loaded.model);
  m.graph_sizes = loaded.sweep.graph_sizes;
  return m;
}

TraceAnalysis analyze(const std::string& path, std::optional<CaptureModel> model = std::nullopt) {
  TraceSettings settings;
  settings.model = std::move(model);
  return analyze_trace(read_capture_inputs({fixture(path)}).trace, shipped(), settings);
}

const TraceStepGroup& group(const TraceResult& t, const std::string& phase, std::optional<int> batch,
                            std::optional<int> rank = std::nullopt) {
  const auto it = std::find_if(t.groups.begin(), t.groups.end(), [&](const TraceStepGroup& g) {
    return g.phase == phase && g.batch == batch && g.rank == rank;
  });
  REQUIRE(it != t.groups.end());
  return *it;
}

template <typename T>
const T& named(const std::vector<T>& list, const std::string& name) {
  const auto it = std::find_if(list.begin(), list.end(), [&](const T& x) {
    if constexpr (requires { x.kind; })
      return x.kind == name;
    else
      return x.cls == name;
  });
  REQUIRE(it != list.end());
  return *it;
}

const JoinCostGroup& join(const TraceResult& t, std::optional<int> batch, const std::string& kind) {
  const auto it = std::find_if(t.join.begin(), t.join.end(),
                               [&](const JoinCostGroup& g) { return g.batch == batch && g.kind == kind; });
  REQUIRE(it != t.join.end());
  return *it;
}

std::string read_error(const std::vector<std::string>& paths) {
  try {
    const CaptureInputs inputs = read_capture_inputs(paths);
    (void)inputs;
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("trace: a vLLM TP8 decode under CUDA graphs, 8 gzip rank files with skewed starts") {
  // The frontend's host-only trace in the folder is skipped, said.
  const CaptureInputs inputs = read_capture_inputs({fixture("vllm-tp8")});
  REQUIRE(inputs.inspector.notes.size() == 1);
  CHECK_THAT(inputs.inspector.notes[0],
             Contains("skipped " + fixture("vllm-tp8/k25-vllm-frontend.1767225600.pt.trace.json.gz") +
                      ": a profiler trace without GPU events"));
  const TraceAnalysis a = analyze("vllm-tp8");
  const TraceResult& t = a.result;
  REQUIRE(t.ranks.size() == 8);
  CHECK(t.step_method == "engine_marks");
  CHECK(t.step_method_detail == "vLLM execute_model marks on 8 of 8 rank(s)");
  CHECK(t.steps == 44);  // even ranks 6 steps, odd ranks 5
  CHECK(t.reference_rank == 0);

  // Rank 0 over its whole trace: 6 steps of 123 x (GEMM, AllReduce, attention) + AllGather + sampler, a copy
  // each.
  const TraceRankResult& r0 = t.ranks[0];
  CHECK(r0.rank == 0);
  CHECK(r0.rank_source == "distributedInfo");
  CHECK(r0.world_size == 8);
  CHECK(r0.kernels == 2226);
  CHECK(r0.copies == 6);
  CHECK(r0.graph_kernels == 2226);
  CHECK(r0.kernel_busy_us == Approx(6 * 658.9));  // per step: 123 x (2 + 3.3) + 5 + 2
  CHECK(r0.gpu_busy_us == Approx(6 * 660.9));
  CHECK(r0.span_us == Approx(5755.5));  // the first copy at 9990 us to the last sampler's end at 15745.5 us
  REQUIRE(r0.comm_kinds.size() == 2);
  CHECK(named(r0.comm_kinds, "AllReduce").count == 738);
  CHECK(named(r0.comm_kinds, "AllReduce").sum_us == Approx(2214.0));
  CHECK(named(r0.comm_kinds, "AllGather").sum_us == Approx(30.0));
  CHECK(r0.comm.merged_us == Approx(2244.0));
  CHECK(r0.comm.overlapped_us == Approx(369.0));  // attention overlaps each AllReduce's last 0.5 us
  CHECK(r0.comm.exposed_us == Approx(1875.0));
  CHECK(r0.comm.overlap_percent == Approx(100.0 * 369.0 / 2244.0));
  CHECK_FALSE(r0.profiler_steps);
  CHECK(named(r0.classes, "attention").sum_us == Approx(590.4));
  CHECK(named(r0.classes, "norm_elementwise").count == 6);
  CHECK(named(r0.classes, "memcpy_memset").merged_us == Approx(12.0));
  CHECK(t.ranks[1].kernels == 1855);

  // One decode step: GPU window from the copy at T-10 to the sampler's end at T+745.5.
  const TraceStepGroup& b1 = group(t, "decode", 1);
  CHECK(b1.steps == 20);
  CHECK(b1.tokens == 1);
  CHECK(b1.wall_us.p50 == Approx(755.5));
  CHECK(b1.wall_us.max == Approx(755.5));
  CHECK(b1.busy_us.p50 == Approx(660.9));
  CHECK(b1.idle_us.p50 == Approx(94.6));
  REQUIRE(b1.host_us);
  CHECK(b1.host_us->p50 == Approx(60.0));
  CHECK(b1.comm_merged_us.p50 == Approx(374.0));
  CHECK(b1.comm_overlapped_us.p50 == Approx(61.5));
  CHECK(b1.comm_exposed_us.p50 == Approx(312.5));
  CHECK(b1.comm_share == Approx(374.0 / 755.5));
  CHECK(b1.exposed_share == Approx(312.5 / 755.5));
  CHECK(named(b1.classes, "gemm").kernels_per_step == 123);
  CHECK(named(b1.classes, "gemm").share == Approx(246.0 / 755.5));
  CHECK(named(b1.classes, "attention").merged_us.p50 == Approx(98.4));
  const TraceKindShare& ar = named(b1.kinds, "AllReduce");
  CHECK(ar.ops_per_step == 123);
  CHECK(ar.op_us.p50 == Approx(3.0));
  CHECK(ar.merged_us.p50 == Approx(369.0));
  CHECK(ar.sum_us.p50 == Approx(369.0));
  CHECK(named(b1.classes, "attention").sum_us.p50 == Approx(98.4));
  CHECK(ar.dtype == "bf16");
  CHECK(ar.launch == "graph");
  CHECK(ar.bytes == 0);
  CHECK(ar.bytes_source == "unknown");
  CHECK(named(b1.kinds, "AllGather").op_us.p50 == Approx(5.0));
  CHECK(group(t, "decode", 3).steps == 24);
  CHECK(group(t, "decode", 1, 1).steps == 2);
  CHECK(t.sizes_unknown == 44 * 124);
  CHECK_THAT(
      t.notes.back(),
      Contains(
          "5456 of 5456 collective kernels have no size in the trace (5456 of them replayed by CUDA graphs"));

  // The join cost: rank r runs 0.25 r us late; step 0 has the even ranks only.
  const JoinCostGroup& j1 = join(t, 1, "AllReduce");
  CHECK(j1.steps == 3);
  CHECK(j1.collectives == 369);
  CHECK(j1.ranks == 8);
  CHECK(j1.start_spread_us.min == Approx(1.5));
  CHECK(j1.start_spread_us.p50 == Approx(1.75));
  CHECK(j1.last_rank == 7);
  CHECK(j1.last_rank_share == Approx(2.0 / 3.0));
  CHECK(join(t, 3, "AllReduce").last_rank_share == Approx(1.0));
  CHECK(join(t, 3, "AllGather").collectives == 3);

  // Kernel time per step: 123 x (GEMM 2 + AllReduce 3 + attention 0.8) + AllGather 5 + sampler 2 = 720.4 us,
  // of which 123 x 3 + 5 = 374 us collectives (the copy is no kernel).
  CHECK(group(t, "decode", 3).comm_kernel_share == Approx(374.0 / 720.4));
  const std::vector<std::string> headline = trace_headline(t, 2);
  REQUIRE(headline.size() == 2);
  CHECK(
      headline[0] ==
      "decode step at batch 3: 755.5 us (p50 of 24 steps over 8 ranks); communication 374.0 us = 49.5 % of the wall, 51.9 % of kernel time (exposed 312.5 us = 41.4 % of the wall): AllReduce 123 x 3.0 us, AllGather 1 x 5.0 us; GEMM 32.6 %, attention 13.0 %, norm/elementwise 0.3 %, memcpy/memset 0.3 %, GPU idle 12.5 %");

  // The collectives as records: one communicator of 8 ranks, lined up across the skewed files.
  CaptureSettings settings;
  settings.given_step_methods[kTraceCommunicatorId] = a.step_method;
  InspectorCapture records = a.records;
  const CaptureResult r = analyze_capture(records, settings);
  REQUIRE(r.communicators.size() == 1);
  const CommunicatorResult& c = r.communicators[0];
  CHECK(c.id == "trace");
  CHECK(c.n_ranks == 8);
  CHECK(c.joined_ops == 744);
  CHECK(c.partial_ops == 124);  // step 0: the odd ranks' files start a step later
  CHECK(c.step.method == "engine_marks");
  CHECK(c.step.pattern_text == "AllReduce x 123, AllGather x 1");
  CHECK(c.step.decode_steps == 6);
}

TEST_CASE(
    "trace: --model sizes graph-replayed AllReduces from the step's batch, padded to the capture sizes") {
  const TraceAnalysis a = analyze("vllm-tp8", model_of("kimi.yaml"));
  const TraceResult& t = a.result;
  CHECK(t.sizes_model == 44 * 123);
  CHECK(t.sizes_unknown == 44);  // the AllGathers
  const TraceKindShare& b1 = named(group(t, "decode", 1).kinds, "AllReduce");
  CHECK(b1.bytes == 14336);
  CHECK(b1.bytes_source == "model");
  CHECK(named(group(t, "decode", 3).kinds, "AllReduce").bytes ==
        4 * 14336);  // batch 3 replays the graph of 4
  CaptureSettings settings;
  settings.model = model_of("kimi.yaml");
  settings.given_step_methods[kTraceCommunicatorId] = a.step_method;
  const CaptureResult r = analyze_capture(a.records, settings);
  const auto& groups = r.communicators.at(0).by_size;
  const auto padded = std::find_if(groups.begin(), groups.end(), [](const SizeGroup& g) {
    return g.kind == "AllReduce" && g.bytes == 57344 && g.phase == "decode";
  });
  REQUIRE(padded != groups.end());
  CHECK(padded->tokens == 4);
  CHECK(padded->mode == "graph");
  CHECK(padded->bytes_source == "model");
  CHECK(padded->count == 369);
}

TEST_CASE(
    "trace: vLLM's custom all-reduce, eager, integer timestamps since the epoch, ranks from file names") {
  const TraceResult t = analyze("custom-ar-tp2").result;
  REQUIRE(t.ranks.size() == 2);
  CHECK(t.ranks[1].rank == 1);
  CHECK(t.ranks[1].rank_source == "file name");
  CHECK(t.ranks[1].world_size == 0);
  CHECK(t.ranks[0].graph_kernels == 0);
  CHECK(named(t.ranks[0].comm_kinds, "AllReduce").count ==
        16);  // cross_device_reduce_1stage counts as communication
  CHECK(named(t.ranks[0].comm_kinds, "AllReduce").sum_us == Approx(48.0));
  CHECK(named(t.ranks[0].comm_kinds, "AllGather").sum_us == Approx(24.0));  // NCCL 2.18's ncclKernel_ name
  const TraceStepGroup& g = group(t, "decode", 2);                          // execute_new_0_cached_2
  CHECK(g.steps == 8);
  CHECK(g.wall_us.p50 == Approx(46.0));
  CHECK(g.busy_us.p50 == Approx(34.0));
  CHECK(g.comm_merged_us.p50 == Approx(18.0));
  CHECK(g.comm_overlapped_us.p50 == Approx(0.0));
  CHECK(named(g.kinds, "AllReduce").launch == "eager");
  CHECK(named(g.kinds, "AllGather").dtype == "int8_t");
  const JoinCostGroup& j = join(t, 2, "AllReduce");
  CHECK(j.start_spread_us.p50 == Approx(1.0));
  CHECK(j.last_rank == 1);
}

TEST_CASE("trace: SGLang steps with c10d's sizes on eager kernels") {
  const TraceAnalysis a = analyze("sglang-c10d-tp2");
  const TraceResult& t = a.result;
  CHECK(t.step_method_detail == "SGLang step marks on 2 of 2 rank(s)");
  CHECK(t.sizes_trace == 2 * 6 * 9);
  for (const int tokens : {1, 2, 4}) {
    const TraceStepGroup& g = group(t, "decode", tokens);
    CHECK(g.steps == 4);
    CHECK(g.wall_us.p50 == Approx(43.0));
    CHECK(g.comm_merged_us.p50 == Approx(19.0));
    CHECK(named(g.kinds, "AllReduce").bytes == 512u * tokens);
    CHECK(named(g.kinds, "AllReduce").bytes_source == "trace");
    CHECK(named(g.kinds, "AllGather").bytes == 1000u * tokens);
  }
  CHECK(join(t, 4, "AllReduce").start_spread_us.max == Approx(0.25));
  CaptureSettings settings;
  settings.model = model_of("smoke.yaml");
  settings.given_step_methods[kTraceCommunicatorId] = a.step_method;
  const CaptureResult r = analyze_capture(a.records, settings);
  const StepSummary& s = r.communicators.at(0).step;
  CHECK(s.pattern_text == "AllReduce x 8, AllGather x 1");
  CHECK(s.matches_model == true);
  CHECK(s.decode_steps == 6);
  CHECK(s.prefill_rule.starts_with("the phase each step's mark gives"));
}

TEST_CASE("trace: an Nsight Systems export of two processes, NVTX marks and NCCL payload sizes") {
  const TraceResult t = analyze("nsys-tp2.sqlite").result;
  REQUIRE(t.ranks.size() == 2);
  CHECK(t.ranks[1].rank == 1);
  CHECK(t.ranks[1].rank_source == "device");
  CHECK(t.ranks[0].kernels == 9);
  CHECK(named(t.ranks[1].comm_kinds, "AllReduce").sum_us == Approx(18.0));
  // Process 1002's marks are registered strings and its correlation ids repeat process 1001's.
  CHECK(t.ranks[1].steps == 3);
  const TraceStepGroup& g = group(t, "decode", 2);
  CHECK(g.steps == 6);
  CHECK(g.wall_us.p50 == Approx(13.0));
  CHECK(g.busy_us.p50 == Approx(11.0));
  CHECK(g.comm_merged_us.p50 == Approx(6.0));
  CHECK(named(g.kinds, "AllReduce").bytes == 4096);
  CHECK(named(g.kinds, "AllReduce").bytes_source == "trace");
  CHECK(t.sizes_trace == 12);
  CHECK(join(t, 2, "AllReduce").start_spread_us.p50 == Approx(0.5));
}

TEST_CASE("trace: an nsys export that traced CUDA graphs whole says so and how to trace again") {
  const TraceResult t = analyze("nsys-graphs.sqlite").result;
  CHECK(t.step_method == "gpu_idle_gaps");
  REQUIRE_FALSE(t.notes.empty());
  CHECK_THAT(t.notes.front(), Contains("3 CUDA graph launches, but no kernel inside a graph"));
  CHECK_THAT(t.notes.front(), Contains("--cuda-graph-trace=node"));
}

TEST_CASE("trace: a file still being written is read up to its cut, and says where") {
  for (const std::string name : {"bad/cut-rank-0.pt.trace.json", "bad/cut-rank-0.pt.trace.json.gz"}) {
    const CaptureInputs inputs = read_capture_inputs({fixture(name)});
    REQUIRE(inputs.trace.files.size() == 1);
    CHECK(inputs.trace.files[0].cut);
    CHECK_THAT(inputs.trace.files[0].cut_reason, Contains("the event cut there is left out"));
    CHECK(inputs.trace.files[0].kernels > 0);
  }
  const CaptureInputs plain = read_capture_inputs({fixture("bad/cut-rank-0.pt.trace.json")});
  CHECK(plain.trace.files[0].kernels == 3);  // the cut falls in the second step's AllReduce
  CHECK_THAT(read_capture_inputs({fixture("bad/cut-rank-0.pt.trace.json.gz")}).trace.files[0].cut_reason,
             Contains("its gzip stream ends early"));
}

TEST_CASE("trace: bad input gets one line naming the file") {
  const auto error = [](const std::string& name) { return read_error({fixture(name)}); };
  CHECK(error("bad/not-a-trace.json") ==
        fixture("bad/not-a-trace.json") +
            ": JSON, but neither a profiler trace (no traceEvents array) nor NCCL Inspector output");
  CHECK(
      error("bad/cpu-only.json") ==
      fixture("bad/cpu-only.json") +
          ": a profiler trace without GPU events (no kernel, memcpy or memset): profile with ProfilerActivity.CUDA");
  CHECK_THAT(error("bad/different-runs"), Contains("files of different runs: "));
  CHECK_THAT(error("bad/different-runs"), Contains("run-rank-0.json has world size 8"));
  CHECK_THAT(error("bad/same-rank"), Contains("a.json and "));
  CHECK_THAT(error("bad/same-rank"), Contains("b.json both claim rank 0 (from distributedInfo)"));
  CHECK(
      error("bad/not-nsys.sqlite") ==
      fixture("bad/not-nsys.sqlite") +
          ": a SQLite database, but not an Nsight Systems export (no StringIds and CUPTI_ACTIVITY_KIND_* tables)");
  CHECK(error("bad/corrupt.sqlite") ==
        fixture("bad/corrupt.sqlite") + ": corrupt SQLite database (file is not a database)");
  k25::test::TempDir dir;
  const std::string binary = dir.write("blob.bin", std::string("\x01\x02\x03 not a trace", 16));
  CHECK(
      read_error({binary}) ==
      binary +
          ": not NCCL Inspector output, a profiler trace (Kineto JSON, plain or gzip) or an Nsight Systems SQLite export");
  // Files of two runs on different days: their GPU times do not overlap.
  for (const auto& [name, day] :
       {std::pair<std::string, std::string>{"x-rank-0.json", "1767225600000000000"},
        std::pair<std::string, std::string>{"x-rank-1.json", "1767312000000000000"}})
    dir.write(
        name,
        "{\"baseTimeNanoseconds\": " + day +
            ", \"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 1.5, \"dur\": 2.0, \"args\": {\"device\": 0}}]}");
  CHECK_THAT(read_error({(dir.path() / "x-rank-0.json").string(), (dir.path() / "x-rank-1.json").string()}),
             Contains("files of different runs: the GPU times of "));
}

TEST_CASE(
    "trace: DeepSeek's DeepEP build, notify_dispatch and cached_notify both Notify, Dispatch's time its own") {
  // 4 notify_dispatch and 12 cached_notify (6 us each), 8 dispatch (120 us), 8 combine (80 us) in one
  // ProfilerStep: the notify kernels are counted with Notify, and the Dispatch p50 is the dispatch kernels'.
  const TraceResult t = analyze("deepseek-ep").result;
  const TraceRankResult& r = t.ranks.at(0);
  CHECK(named(r.comm_kinds, "Dispatch").count == 8);
  CHECK(named(r.comm_kinds, "Notify").count == 16);
  CHECK(named(r.comm_kinds, "Combine").count == 8);
  CHECK(named(r.comm_kinds, "Notify").sum_us == Approx(96.0).margin(1e-9));
  const TraceStepGroup& step = group(t, "unknown", std::nullopt);
  CHECK(named(step.kinds, "Dispatch").ops_per_step == 8);
  CHECK(named(step.kinds, "Dispatch").op_us.p50 == Approx(120.0).margin(1e-9));
  CHECK(named(step.kinds, "Notify").ops_per_step == 16);
  CHECK(named(step.kinds, "Notify").op_us.max == Approx(6.0).margin(1e-9));
  REQUIRE(t.backends.size() == 3);
  for (const BackendRow& b : t.backends) CHECK(b.backend == "DeepSeek DeepEP (internode)");
}

TEST_CASE("trace: the backend that ran each kind and size, and the engines' rules for another link") {
  // One rank of 8: NCCL 1 AllReduce of 7,168 BFloat16 (c10d), vLLM's custom all-reduce 2 x 12 us, torch
  // symmetric memory 3 x 9 us, FlashInfer's fusion 4 x 7 us, DeepEP low-latency 5 dispatches of 30 us, NCCL's
  // symmetric kernel 6 x 8 us, quick all-reduce 7 x 11 us, MSCCL++ 8 x 6 us, pplx 9 dispatches of 25 us, NCCL
  // EP 10 combines of 28 us, TRT-LLM's fusion 11 x 5 us.
  const TraceResult t = analyze("backends-tp8").result;
  REQUIRE(t.backends.size() == 11);
  const auto row = [&](std::size_t i, const std::string& kind, std::optional<std::uint64_t> bytes,
                       const std::string& backend, std::uint64_t count, double op_us) {
    INFO(i);
    CHECK(t.backends[i].kind == kind);
    CHECK(t.backends[i].bytes == bytes);
    CHECK(t.backends[i].backend == backend);
    CHECK(t.backends[i].count == count);
    CHECK(t.backends[i].op_us_p50 == Approx(op_us).margin(1e-9));
  };
  row(0, "AllReduce", std::nullopt, "FlashInfer all-reduce fusion (oneshot)", 4, 7.0);
  row(1, "AllReduce", std::nullopt, "MSCCL++ (LL 1node)", 8, 6.0);
  row(2, "AllReduce", std::nullopt, "NCCL symmetric (RSxLD_AGxST kernel)", 6, 8.0);
  row(3, "AllReduce", std::nullopt, "TRT-LLM all-reduce fusion (oneshot)", 11, 5.0);
  row(4, "AllReduce", std::nullopt, "torch symmetric memory (two-shot)", 3, 9.0);
  row(5, "AllReduce", std::nullopt, "vLLM custom all-reduce (2-stage)", 2, 12.0);
  row(6, "AllReduce", std::nullopt, "vLLM quick all-reduce (twoshot)", 7, 11.0);
  row(7, "AllReduce", 14336, "NCCL (RING_LL kernel)", 1, 20.0);
  row(8, "Combine", std::nullopt, "NCCL EP (ll)", 10, 28.0);
  row(9, "Dispatch", std::nullopt, "DeepEP (internode_ll)", 5, 30.0);
  row(10, "Dispatch", std::nullopt, "pplx-kernels", 9, 25.0);
  // vLLM would not run its custom all-reduce on 8 PCIe GPUs, nor torch symmetric memory without NVSwitch.
  REQUIRE(t.backend_rules.size() == 2);
  CHECK(t.backend_rules[0].backend == "vLLM custom all-reduce (2-stage)");
  CHECK(t.backend_rules[0].ranks == 8);
  CHECK_THAT(t.backend_rules[0].rule, Contains("more than two PCIe-only GPUs"));
  CHECK(t.backend_rules[1].backend == "torch symmetric memory (two-shot)");
  CHECK(t.backend_rules[1].source == "vllm/distributed/device_communicators/symm_mem.py");
  std::string md;
  render_trace_markdown(md, t);
  CHECK_THAT(md, Contains("| AllReduce | 14336 | NCCL (RING_LL kernel) | 1 | 20.0 |"));
  CHECK_THAT(md,
             Contains("- vLLM custom all-reduce (2-stage) on 8 ranks: vLLM turns its custom all-reduce off"));
}

TEST_CASE(
    "trace: training without step marks: the optimizer's steps or a repeated module call are the steps") {
  // Five iterations, each the forward (launched on thread 100), the backward (on autograd's thread 200) and
  // the optimizer's kernel: from the first forward kernel to the optimizer's end, 2,100 us, 500 us busy.
  for (const std::string fixture_name : {"training-optimizer", "training-modules"}) {
    INFO(fixture_name);
    const TraceResult t = analyze(fixture_name).result;
    CHECK(t.step_method == "engine_marks");
    CHECK_THAT(t.step_method_detail, Contains("the host's training iterations"));
    REQUIRE(t.step_rows.size() == 5);
    for (const TraceStepRow& row : t.step_rows) {
      CHECK(row.wall_us == Approx(2100.0).margin(1e-9));
      CHECK(row.busy_us == Approx(500.0).margin(1e-9));
      CHECK(row.phase == "unknown");
    }
    CHECK_THAT(trace_headline(t, 3).at(0), Catch::Matchers::StartsWith("step: 2.10 ms (p50 of 5 steps);"));
  }
  CHECK_THAT(analyze("training-optimizer").result.step_method_detail, Contains("Optimizer.step iteration"));
  CHECK_THAT(analyze("training-modules").result.step_method_detail, Contains("nn.Module call iteration"));
}

TEST_CASE("trace: steps cut at GPU idle gaps say so, and the GPU's idle share of the whole span") {
  // The same five iterations without host marks: 15 busy stretches (forward, backward, optimizer) between
  // idle gaps; the GPU is busy 2,500 us of the 42,100 us span: idle 94.1 %, not the 42.9 % inside the
  // stretches.
  const TraceResult t = analyze("training-gaps").result;
  CHECK(t.step_method == "gpu_idle_gaps");
  CHECK(t.steps == 15);
  const std::vector<std::string> headline = trace_headline(t, 3);
  REQUIRE(headline.size() == 1);
  CHECK_THAT(
      headline[0],
      Catch::Matchers::StartsWith(
          "step cut at GPU idle gaps (no step marks): 350.0 us (p50 of 15 steps, gaps of 100 us or more);"));
  CHECK_THAT(headline[0],
             Catch::Matchers::EndsWith("GPU idle 42.9 % of the steps, 94.1 % of the whole span (42.10 ms)"));
}

TEST_CASE("trace: a ProfilerStep that launched no GPU work is counted and said, never silently dropped") {
  // Two ranks, ProfilerStep#1..#3; #3 launched nothing on either rank.
  const TraceResult t = analyze("profiler-steps-tp2").result;
  CHECK(t.steps == 4);
  CHECK(t.marks_without_gpu_work == 2);
  CHECK(std::count(t.notes.begin(), t.notes.end(),
                   "rank 0: 1 step mark(s) launched no GPU work (ProfilerStep#3): counted, not steps") == 1);
  CHECK(std::count(t.notes.begin(), t.notes.end(),
                   "rank 1: 1 step mark(s) launched no GPU work (ProfilerStep#3): counted, not steps") == 1);
  CHECK_THAT(trace_headline(t, 3).at(0),
             Catch::Matchers::EndsWith("; 2 more step mark(s) launched no GPU work"));
}

TEST_CASE("capture: a training trace's steps are never called decode") {
  // ProfilerSteps say no phase: the trace communicator's per-size groups, its step table, the CSV's phases
  // and the words of capture.md say "unknown" and "step", never "decode".
  CaptureRules rules;
  rules.kernel_class_tables = {std::string(K25_SOURCE_DIR) + "/data/kernel-classes.yaml"};
  const CaptureResult r = analyze_capture_files({fixture("profiler-steps-tp2")}, rules);
  REQUIRE(r.communicators.size() == 1);
  const CommunicatorResult& c = r.communicators[0];
  for (const SizeGroup& g : c.by_size) CHECK(g.phase == "unknown");
  REQUIRE(c.step.by_size.size() == 1);
  CHECK(c.step.by_size[0].phase == "unknown");
  for (const TimelineRow& row : r.timelines.at(0)) CHECK(row.phase == 'u');
  const std::string md = render_capture_markdown(r, {});
  CHECK_THAT(md, Contains("Communication of one step (sum of its ops"));
  CHECK_THAT(md, Contains("| kind | ops per step | us per step p50 | share of the steps' comm |"));
  CHECK(md.find("decode") == std::string::npos);
}

TEST_CASE("capture: --prefill-tokens is the one prefill rule of a trace's steps and of its communicator") {
  // pattern-tp2: steps of 1, 1, 1, 1, 2, 2, 4 and 4 tokens found by the collectives' pattern (no marks). The
  // factor finds no jump of 4 x: every step decode, in the trace's groups and in the communicator alike.
  CaptureRules rules;
  rules.kernel_class_tables = {std::string(K25_SOURCE_DIR) + "/data/kernel-classes.yaml"};
  rules.model = model_of("kimi.yaml");
  const CaptureResult by_factor = analyze_capture_files({fixture("pattern-tp2")}, rules);
  REQUIRE(by_factor.trace.present);
  CHECK(by_factor.trace.step_method == "comm_pattern");
  CHECK(group(by_factor.trace, "decode", 4).steps == 4);  // 2 steps on each of the 2 ranks
  REQUIRE(by_factor.communicators.size() == 1);
  // The communicator's first step is outside its steps: its ops come before any closing AllGather.
  CHECK(by_factor.communicators[0].step.decode_steps == 7);
  CHECK(by_factor.communicators[0].step.prefill_steps == 0);

  // --prefill-tokens 2: the steps of 4 tokens are prefill in both views.
  rules.prefill_tokens = 2;
  const CaptureResult by_tokens = analyze_capture_files({fixture("pattern-tp2")}, rules);
  REQUIRE(by_tokens.trace.present);
  const TraceResult& t = by_tokens.trace;
  CHECK(std::none_of(t.groups.begin(), t.groups.end(),
                     [](const TraceStepGroup& g) { return g.phase == "decode" && g.batch == 4; }));
  const TraceStepGroup& prefill = group(t, "prefill", std::nullopt);
  CHECK(prefill.steps == 4);
  CHECK(prefill.tokens == 4);
  CHECK(group(t, "decode", 2).steps == 4);
  REQUIRE(by_tokens.communicators.size() == 1);
  const CommunicatorResult& c = by_tokens.communicators[0];
  CHECK_THAT(c.step.prefill_rule, Contains("--prefill-tokens"));
  CHECK(c.step.decode_steps == 5);
  CHECK(c.step.prefill_steps == 2);
}

TEST_CASE("trace: microseconds since the epoch with decimals are read exactly, as decimal text") {
  // ProfilerStep#7 around two 10 us GEMMs at 1712195495519689.047 and 1712195495617341.942: a step wall of
  // 97,662.895 us (doubles hold such a timestamp to 0.25 us only: 97,663.000).
  const TraceResult t = analyze("epoch-fraction").result;
  REQUIRE(t.step_rows.size() == 1);
  CHECK(t.step_rows[0].wall_us == 97662.895);
  CHECK(t.ranks.at(0).span_us == 97662.895);
  CHECK(microseconds_to_ns("1712195495519689.047") == 1712195495519689047);
  CHECK(microseconds_to_ns("12") == 12000);
  CHECK(microseconds_to_ns("12.5  \n") == 12500);
  CHECK(microseconds_to_ns("-3.25") == -3250);
  CHECK(microseconds_to_ns("1.2345") == 1235);  // a fourth decimal rounds half up
  CHECK(microseconds_to_ns("1.2344999") == 1234);
  CHECK(microseconds_to_ns("3.5e2") == 350000);
  CHECK_FALSE(microseconds_to_ns("1."));
  CHECK_FALSE(microseconds_to_ns("abc"));
  CHECK_FALSE(microseconds_to_ns("\"12\""));
  CHECK_FALSE(microseconds_to_ns("99999999999999999999"));
  CHECK(integer_of("42 ") == 42);
  CHECK(integer_of("4.0") == 4);
  CHECK_FALSE(integer_of("x"));
  CHECK(plain_string("\"ab c\"  ") == std::string_view("ab c"));
  CHECK_FALSE(plain_string("\"a\\\"b\""));  // an escape: unescaped by the parser
}

TEST_CASE("trace: the events read a piece at a time are the events of the whole file") {
  // Pieces of 200 bytes (one or two events each) against the default pieces (the whole array at once).
  for (const std::string name : {"vllm-tp8/k25-vllm-rank-3.17672256003.pt.trace.json.gz",
                                 "custom-ar-tp2/k25-custom-rank-1.1767225600.pt.trace.json",
                                 "training-modules/train-rank-0.pt.trace.json"}) {
    INFO(name);
    KinetoReader whole, pieces(200);
    TraceCapture a, b;
    whole.read_file(fixture(name), a);
    pieces.read_file(fixture(name), b);
    REQUIRE(a.activities.size() == b.activities.size());
    CHECK(a.files[0].events == b.files[0].events);
    for (std::size_t i = 0; i < a.activities.size(); ++i) {
      CHECK(a.activities[i].start_ns == b.activities[i].start_ns);
      CHECK(a.activities[i].end_ns == b.activities[i].end_ns);
      CHECK(a.names[a.activities[i].name] == b.names[b.activities[i].name]);
      CHECK(a.activities[i].launch_ns == b.activities[i].launch_ns);
    }
    REQUIRE(a.marks.size() == b.marks.size());
    for (std::size_t i = 0; i < a.marks.size(); ++i) CHECK(a.marks[i].gpu_end_ns == b.marks[i].gpu_end_ns);
  }
  // A one-line file cut short has no event boundary to cut at: the whole document, closed where it can be.
  const CaptureInputs compact = read_capture_inputs({fixture("bad/cut-compact.json")});
  CHECK(compact.trace.files.at(0).cut);
  CHECK_THAT(compact.trace.files[0].cut_reason, Contains("the event cut there is left out"));
  CHECK(compact.trace.files[0].kernels > 10);
}

TEST_CASE("capture: the input formats are one table: docs/capture.md's list and the refusals come from it") {
  std::ifstream in(std::string(K25_SOURCE_DIR) + "/docs/capture.md");
  const std::string docs((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string begin = "<!-- input formats: generated from src/capture/readers/input_formats.cpp -->\n";
  const std::string end = "<!-- end of input formats -->";
  const auto from = docs.find(begin), to = docs.find(end);
  REQUIRE(from != std::string::npos);
  REQUIRE(to != std::string::npos);
  INFO("docs/capture.md's block between the input-format markers should read:\n" << input_formats_markdown());
  CHECK(docs.substr(from + begin.size(), to - from - begin.size()) == input_formats_markdown());
  CHECK(
      one_of_the_formats() ==
      "NCCL Inspector output, a profiler trace (Kineto JSON, plain or gzip) or an Nsight Systems SQLite export");
  CHECK(
      formats_list() ==
      "NCCL Inspector logs, PyTorch profiler (Kineto) traces (JSON, plain or gzip) or Nsight Systems SQLite exports");
  // Every format named once has its row, and capture.md titles each input by its own format.
  for (const InputFormatName& name : kInputFormatNames)
    CHECK(format_family(name.format).format == name.format);
  CHECK(std::string(format_title(InputFormat::kineto)) == "PyTorch profiler (Kineto)");
}

TEST_CASE("trace: both timestamp styles give the same nanoseconds") {
  KinetoReader reader;
  const TraceCapture relative = reader.read_text(
      R"({"baseTimeNanoseconds": 1700000000000000000, "traceEvents": [
         {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 12.345, "dur": 1.5, "args": {"device": 0}}]})",
      "relative.json");
  const TraceCapture epoch = reader.read_text(
      R"({"traceEvents": [
         {"ph": "X", "cat": "Kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1700000000000012, "dur": 2}]})",
      "epoch-rank-3.json");
  REQUIRE(relative.activities.size() == 1);
  REQUIRE(epoch.activities.size() == 1);
  CHECK(relative.activities[0].start_ns == 1700000000000012345);
  CHECK(relative.activities[0].end_ns == 1700000000000013845);
  CHECK(epoch.activities[0].start_ns == 1700000000000012000);
  CHECK(epoch.activities[0].end_ns == 1700000000000014000);
  CHECK(epoch.ranks[0].rank == 3);
  CHECK(epoch.ranks[0].rank_source == "file name");
}

TEST_CASE(
    "kernel classes: NCCL's names give kind, dtype and template, the other classes, a user's table first") {
  const KernelClassifier& c = shipped();
  const auto check = [&](const std::string& name, KernelClass cls, const std::string& kind = "",
                         const std::string& dtype = "", const std::string& backend = "") {
    INFO(name);
    const KernelClassification k = c.classify(name);
    CHECK(kernel_class_info(k.cls).key == std::string(kernel_class_info(cls).key));
    CHECK(k.kind == kind);
    CHECK(k.dtype == dtype);
    CHECK(k.backend == backend);
  };
  const KernelClass comm = KernelClass::communication;
  check("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", comm, "AllReduce",
        "bf16", "NCCL (RING_LL kernel)");
  check("ncclDevKernel_ReduceScatter_Sum_f32_RING_LL", comm, "ReduceScatter", "f32", "NCCL (RING_LL kernel)");
  check("ncclDevKernel_AllReduce_Sum_f16_NVLS_TREE_SIMPLE", comm, "AllReduce", "f16",
        "NCCL (NVLS_TREE_SIMPLE kernel)");
  check("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", comm, "AllGather", "",
        "NCCL (RING_LL kernel)");
  check("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<(unsigned long)4096>)", comm, "SendRecv", "",
        "NCCL");
  check("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", comm, "AllReduce",
        "float", "NCCL (RING_LL kernel)");
  check("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)", comm, "SendRecv", "int8_t",
        "NCCL (RING_SIMPLE kernel)");
  check("ncclSymkDevKernel_AllReduce_RSxLD_AGxST_sum_bf16", comm, "AllReduce", "bf16",
        "NCCL symmetric (RSxLD_AGxST kernel)");
  check("ncclSymkDevKernel_AllReduce_LDMC_STMC_bf16", comm, "AllReduce", "bf16",
        "NCCL symmetric (LDMC_STMC kernel)");
  check("ncclSymkDevKernel_AllGather_LL(ncclSymkDevWorkArgs4K)", comm, "AllGather", "",
        "NCCL symmetric (LL kernel)");
  check("ncclSymkDevKernel_ReduceScatter_LDMC_sum_f32", comm, "ReduceScatter", "f32",
        "NCCL symmetric (LDMC kernel)");
  check("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", comm, "Generic", "", "NCCL");

  // All-reduce kernels outside NCCL, each named as its library's source names it.
  check(
      "void vllm::cross_device_reduce_2stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, __nv_bfloat16*, int, int)",
      comm, "AllReduce", "", "vLLM custom all-reduce (2-stage)");
  check(
      "void vllm::cross_device_reduce_1stage<float, 2>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, float*, int, int)",
      comm, "AllReduce", "", "vLLM custom all-reduce (1-stage)");
  check(
      "void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, unsigned long, unsigned int**, unsigned long, unsigned long)",
      comm, "AllReduce", "", "torch symmetric memory (multimem)");
  check(
      "void c10d::symmetric_memory::multimem_one_shot_reduce_kernel<float, 16>(float*, float*, unsigned long, unsigned int**, unsigned long, unsigned long, long)",
      comm, "AllReduce", "", "torch symmetric memory (multimem one-shot)");
  check(
      "void c10d::symmetric_memory::one_shot_all_reduce_kernel<c10::BFloat16, 16, 8>(c10::BFloat16**, c10::BFloat16*, c10::BFloat16*, unsigned long, unsigned long, unsigned int**, unsigned long, unsigned long)",
      comm, "AllReduce", "", "torch symmetric memory (one-shot)");
  check(
      "void c10d::symmetric_memory::two_shot_all_reduce_kernel<c10::BFloat16, 16, 8, false, false>(c10::BFloat16**, c10::BFloat16*, unsigned long, unsigned long, unsigned int**, unsigned long, unsigned long)",
      comm, "AllReduce", "", "torch symmetric memory (two-shot)");
  check(
      "void c10d::symmetric_memory::multimem_all_gather_kernel<16>(char*, char*, unsigned long, unsigned int**, unsigned long, unsigned long)",
      comm, "AllGather", "", "torch symmetric memory (multimem)");
  check(
      "void flashinfer::trtllm_allreduce_fusion::allreduce_fusion_kernel_oneshot_lamport<__nv_bfloat16, 8, true>(flashinfer::trtllm_allreduce_fusion::AllReduceFusionParams<__nv_bfloat16>)",
      comm, "AllReduce", "", "FlashInfer all-reduce fusion (oneshot)");
  check(
      "void tensorrt_llm::kernels::ar_fusion::allreduce_fusion_kernel_twoshot_sync<(tensorrt_llm::kernels::ar_fusion::AllReduceFusionPattern)1, __nv_bfloat16, 8, true>(tensorrt_llm::kernels::ar_fusion::AllReduceFusionParams)",
      comm, "AllReduce", "", "TRT-LLM all-reduce fusion (twoshot)");
  check("tensorrt_llm::kernels::ar_fusion::lamport_initialize_kernel(float*, int)",
        KernelClass::memcpy_memset);
  check(
      "void quickreduce::allreduce_prototype_twoshot<quickreduce::AllReduceTwoshot<__hip_bfloat16, quickreduce::CodecFP<__hip_bfloat16>, false>>(__hip_bfloat16 const*, __hip_bfloat16*, unsigned int, int, int, unsigned char**, unsigned int, long)",
      comm, "AllReduce", "", "vLLM quick all-reduce (twoshot)");
  check(
      "void allreduce_LL_1node<__nv_bfloat16>(mscclpp::MemoryChannelDeviceHandle*, __nv_bfloat16*, __nv_bfloat16*, void*, int, int, int, unsigned long, unsigned int)",
      comm, "AllReduce", "", "MSCCL++ (LL 1node)");

  // Expert parallelism by what the kernel does: Notify (the count exchange and the cached mode's, the buffer
  // cleaning: barriers across the ranks), Dispatch and Combine (the tokens), in each EP library's names. The
  // DeepSeek-V3 training trace's own build: notify_dispatch and cached_notify are both Notify.
  check("void dpsk::ep::internode::notify_dispatch<false, 8, 4>(int const*, int*, int, int const*, int*)",
        comm, "Notify", "", "DeepSeek DeepEP (internode)");
  check("void dpsk::ep::internode::cached_notify<8>(int, int, int, int, int*, int*, int*, void*)", comm,
        "Notify", "", "DeepSeek DeepEP (internode)");
  check("void dpsk::ep::internode::dispatch<false, 8, 4, 2, 2048>(int4*, float*, long*, float*)", comm,
        "Dispatch", "", "DeepSeek DeepEP (internode)");
  check("void dpsk::ep::internode::combine<__nv_bfloat16, 8, 4, 2048>(int4*, float*, bool const*)", comm,
        "Combine", "", "DeepSeek DeepEP (internode)");
  check("void dpsk::ep::intranode::notify_dispatch<8>(int const*, int*, int, int const*, int*, int, int)",
        comm, "Notify", "", "DeepSeek DeepEP (intranode)");
  check("void dpsk::ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*, long*, float*)", comm,
        "Dispatch", "", "DeepSeek DeepEP (intranode)");
  check("void dpsk::ep::intranode::cached_notify_combine<8>(void**, int*, int, int, int, int**, int)", comm,
        "Notify", "", "DeepSeek DeepEP (intranode)");
  check("void dpsk::ep::intranode::combine<__nv_bfloat16, 8, 768>(__nv_bfloat16*, float*, int4 const*)", comm,
        "Combine", "", "DeepSeek DeepEP (intranode)");
  check("void dpsk::ep::cuda::get_dispatch_layout<256, 32, 8>(long const*, int*, int*, int*, bool*, int)",
        KernelClass::moe_routing);
  check("void deep_ep::layout::get_dispatch_layout<256, 32, 8>(long const*, int*, int*)",
        KernelClass::moe_routing);
  check(
      "void deep_ep::intranode::notify_dispatch<8>(int const*, int*, int const*, int*, int, int, int, bool const*, int*, int*, int, int, void**, int**, int, int)",
      comm, "Notify", "", "DeepEP (intranode)");
  check("void deep_ep::intranode::cached_notify_dispatch<8>(int const*, int, void**, int**, int, int)", comm,
        "Notify", "", "DeepEP (intranode)");
  check(
      "void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*, long*, float*, int*, int*, int4 const*)",
      comm, "Dispatch", "", "DeepEP (intranode)");
  check("void deep_ep::intranode::combine<__nv_bfloat16, 8, 768>(__nv_bfloat16*, float*, int4 const*)", comm,
        "Combine", "", "DeepEP (intranode)");
  check("void deep_ep::intranode::barrier<8>(int**, int)", comm, "Barrier", "", "DeepEP (intranode)");
  check("void deep_ep::internode::cached_notify<8, 4>(int, int, int, int, int*, int*, int*, void*, int*)",
        comm, "Notify", "", "DeepEP (internode)");
  check("void deep_ep::internode_ll::clean_low_latency_buffer<128>(int*, int, int*, int)", comm, "Notify", "",
        "DeepEP (internode_ll)");
  check("void deep_ep::internode_ll::dispatch<false, 3, 10, 7168>(void*, float*, int*, long*, int*)", comm,
        "Dispatch", "", "DeepEP (internode_ll)");
  check("void deep_ep::internode_ll::combine<false, 3, 10, 7168, 9>(void*, void*, int*, void*, void const*)",
        comm, "Combine", "", "DeepEP (internode_ll)");
  check("void primus_turbo::deep_ep::intranode::dispatch<8, 512, 4096>(int4*, float*)", comm, "Dispatch", "",
        "DeepEP (intranode)");
  check("void nccl_ep::internode_ll::dispatch<true, 7168>(void*, float*, int*)", comm, "Dispatch", "",
        "NCCL EP");
  check("nccl_ep_jit_ll_dispatch_kernel", comm, "Dispatch", "", "NCCL EP (ll)");
  check("nccl_ep_jit_ht_combine_kernel", comm, "Combine", "", "NCCL EP (ht)");
  check("nccl_ep_jit_ll_clean_kernel", comm, "Notify", "", "NCCL EP (ll)");
  check("nccl_ep_jit_ht_scan_kernel", KernelClass::moe_routing);
  check("ncclEpDispatchKernel", comm, "Dispatch", "", "NCCL EP");
  check("void uccl::internode::combine<__nv_bfloat16, 8>(int4*, float*)", comm, "Combine", "", "UCCL-EP");
  check("void my_ep::ll::cached_notify<8>(int*)", comm, "Notify", "", "EP library (my_ep)");
  check(
      "void (anonymous namespace)::dispatchKernel<8u, true, true>(int*, unsigned long, std::byte*, unsigned long, unsigned long)",
      comm, "Dispatch", "", "pplx-kernels");
  check(
      "void combineKernel<__nv_bfloat16, __nv_bfloat16, 8ul, true, true>(__nv_bfloat16*, unsigned long, unsigned int*)",
      comm, "Combine", "", "pplx-kernels");
  check(
      "void dispatchKernel<7168>(void*, int*, long*, int*, mscclpp::BaseMemoryChannelDeviceHandle*, int, int, int)",
      comm, "Dispatch", "", "MSCCL++ EP");
  check("tensorrt_llm::kernels::moe_comm::moeA2APrepareDispatchKernel(int*, int*, int*, int, unsigned int*)",
        comm, "Notify", "", "TRT-LLM MoE all-to-all");
  check(
      "void tensorrt_llm::kernels::moe_comm::moeA2ADispatchKernel<8, false>(int const*, tensorrt_llm::kernels::moe_comm::KernelPointers, int)",
      comm, "Dispatch", "", "TRT-LLM MoE all-to-all");
  check("void tensorrt_llm::kernels::moe_a2a::moeA2ACombineKernel<__nv_bfloat16, 8>(...)", comm, "Combine",
        "", "TRT-LLM MoE all-to-all");
  check(
      "void mori::moe::EpDispatchIntraNodeKernel<__hip_bfloat16>(mori::moe::EpDispatchCombineArgs<__hip_bfloat16>)",
      comm, "Dispatch", "", "MORI EP (IntraNode)");

  check("nvjet_tst_192x192_64x4_2x1_v_bz_coopB_bias_TNN", KernelClass::gemm);
  check("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1", KernelClass::gemm);
  check("void marlin_moe_wna16::Marlin<...>(...)", KernelClass::gemm);
  check(
      "void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, cutlass::bfloat16_t>, false>(Flash_fwd_params)",
      KernelClass::attention);
  check("void vllm::paged_attention_v2_kernel<__nv_bfloat16>(...)", KernelClass::attention);
  check("void vllm::moe::topkGatingSoftmax<8, 256>(float const*, bool const*, float*, int, int*)",
        KernelClass::moe_routing);
  check("void vllm::moe::moe_align_block_size_kernel<int>(int const*, int*)", KernelClass::moe_routing);
  check("void vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(...)", KernelClass::norm_elementwise);
  check("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >(int)",
        KernelClass::norm_elementwise);
  check("[CUDA memcpy]", KernelClass::memcpy_memset);
  check("void flashinfer::sampling::TopKTopPSamplingFromProbKernel<1024>(...)", KernelClass::other);
  check("my_own_kernel_v2", KernelClass::unclassified);

  // The engines' rules for backends that another link would not have run.
  REQUIRE(c.backend_rules().size() == 2);
  CHECK(c.backend_rules()[0].backend == "vLLM custom all-reduce");
  CHECK(c.backend_rules()[0].above_ranks == 2);
  CHECK(c.backend_rules()[0].source == "vllm/distributed/device_communicators/custom_all_reduce.py");

  k25::test::TempDir dir;
  const std::string user = dir.write("mine.yaml",
                                     "rules:\n  - {match: '^my_own_', class: gemm}\n"
                                     "  - {match: 'nvjet', class: other}\n");
  const KernelClassifier mine({user, std::string(K25_SOURCE_DIR) + "/data/kernel-classes.yaml"});
  CHECK(mine.classify("my_own_kernel_v2").cls == KernelClass::gemm);
  CHECK(mine.classify("nvjet_tst_192x192").cls == KernelClass::other);  // the user's table is tried first
  CHECK(mine.tables().size() == 2);

  const auto error = [&](const std::string& text) {
    const std::string path = dir.write("bad.yaml", text);
    try {
      KernelClassifier bad({path});
    } catch (const UsageError& e) {
      return std::string(e.what()).substr(path.size());
    }
    return std::string("no error");
  };
  CHECK(
      error("rules:\n  - {match: 'x', class: nonsense}\n") ==
      ":2: unknown class 'nonsense' (communication, gemm, attention, moe_routing, norm_elementwise, memcpy_memset, other)");
  CHECK_THAT(error("rules:\n  - {match: '(', class: gemm}\n"), Contains(":2: bad pattern: "));
  CHECK(error("rules:\n  - {match: 'x', class: gemm, colour: red}\n") ==
        ":2: unknown key 'colour' (match, class, kind, dtype, backend, ignore_case)");
  CHECK(error("rules: []\nbackend_rules:\n  - {backend: x, rule: y}\n") ==
        ":3: a backend rule needs 'backend', 'rule' and 'source'");
  CHECK(error("classes: []\n") == ": not a kernel-class table: a top-level 'rules' list expected");
  CHECK(error("rules:\n  - {class: gemm}\n") == ":2: a rule needs 'match' and 'class'");
}

TEST_CASE("step marks: vLLM's three forms, SGLang's, ProfilerStep") {
  const auto mark = [](const std::string& name) {
    const auto m = parse_step_mark(name);
    REQUIRE(m);
    return *m;
  };
  ParsedStepMark m = mark("execute_context_0(0)_generation_32(32)");
  CHECK(m.family == MarkFamily::vllm);
  CHECK(m.phase == StepPhase::decode);
  CHECK(m.batch == 32);
  CHECK(m.tokens == 32);
  m = mark("execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk55086sqsq32sqsk55086)");
  CHECK(m.phase == StepPhase::decode);
  CHECK(m.tokens == 32);
  m = mark("execute_2048_context_2(sq1024)_generation_0()");
  CHECK(m.phase == StepPhase::prefill);
  CHECK(m.batch == 2);
  CHECK(m.tokens == 2048);
  m = mark("execute_context_1(512)_generation_7(7)");
  CHECK(m.phase == StepPhase::mixed);
  CHECK(m.batch == 8);
  CHECK(m.tokens == 512 + 7);                                 // the groups' token counts
  m = mark("execute_context_1(888_788544)_generation_0(0)");  // the vLLM B200 trace's one step
  CHECK(m.phase == StepPhase::prefill);
  CHECK(m.batch == 1);
  CHECK(m.tokens == 888);
  m = mark("execute_new_0_cached_16");
  CHECK(m.phase == StepPhase::decode);
  CHECK(m.batch == 16);
  CHECK(mark("execute_new_3_cached_0").phase == StepPhase::prefill);
  m = mark("step[DECODE bs=8]");
  CHECK(m.family == MarkFamily::sglang);
  CHECK(m.batch == 8);
  m = mark("step[EXTEND bs=2 toks=900]");
  CHECK(m.phase == StepPhase::prefill);
  CHECK(m.tokens == 900);
  CHECK(mark("ProfilerStep#12").family == MarkFamily::profiler_step);
  CHECK_FALSE(parse_step_mark("execute_model"));
  CHECK_FALSE(parse_step_mark("ProfilerStep#x"));
  CHECK_FALSE(parse_step_mark("nccl:all_reduce"));
}

TEST_CASE("intervals: union, windowed measure, intersection") {
  const MergedIntervals a({{10, 20}, {15, 30}, {40, 50}, {5, 5}});
  REQUIRE(a.intervals().size() == 2);
  CHECK(a.total() == 30);
  CHECK(a.measure_in(0, 100) == 30);
  CHECK(a.measure_in(12, 45) == 23);
  CHECK(a.measure_in(30, 40) == 0);
  CHECK(a.measure_in(45, 46) == 1);
  CHECK(a.measure_in(50, 10) == 0);
  const MergedIntervals b({{25, 42}, {49, 60}});
  const MergedIntervals both = intersect(a, b);
  CHECK(both.total() == 5 + 2 + 1);
}
