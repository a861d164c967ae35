// The captured decode step as model.sequence entries (capture --emit-config): per-token and fixed sizes,
// nccl-tests' sizes for AllGather and ReduceScatter, merged runs, and every reason there is no sequence.
#include <catch2/catch.hpp>

#include <string>

#include "capture/analysis/capture_analysis.hpp"
#include "capture/analysis/captured_sequence.hpp"
#include "capture/readers/inspector_reader.hpp"
#include "config/config_loader.hpp"

using namespace k25;
using Catch::Matchers::Contains;

namespace {

// Kinds by index, as the Inspector reader interns them.
const std::vector<std::string> kKinds = {"AllReduce", "ReduceScatter", "Broadcast", "AllGather"};
constexpr std::uint16_t kAllReduce = 0, kReduceScatter = 1, kBroadcast = 2, kAllGather = 3;

// A capture of one communicator of `ranks` ranks whose timeline holds `steps` (each a list of (kind,
// Inspector bytes)) as decode steps, and a model of 256 B per token (hidden 128, bf16).
CaptureResult capture_of(int ranks,
                         const std::vector<std::vector<std::pair<std::uint16_t, std::uint64_t>>>& steps) {
  CaptureResult capture;
  capture.kinds = kKinds;
  CaptureModel model;
  model.name = "tiny";
  model.hidden_size = 128;
  capture.model = model;
  CommunicatorResult comm;
  comm.id = "0xabc";
  comm.name = "tp";
  comm.n_ranks = ranks;
  comm.step.found = true;
  comm.step.decode_steps = steps.size();
  capture.communicators.push_back(comm);
  std::vector<TimelineRow> timeline;
  std::uint64_t position = 0;
  for (std::size_t s = 0; s < steps.size(); ++s)
    for (const auto& [kind, bytes] : steps[s]) {
      TimelineRow row;
      row.position = position++;
      row.kind = kind;
      row.bytes = bytes;
      row.step = static_cast<std::int64_t>(s);
      row.phase = 'd';
      timeline.push_back(row);
    }
  capture.timelines.push_back(timeline);
  return capture;
}

// A sequence entry of `count` ops: `per_token` bytes per token, or fixed `bytes` where per_token is 0.
SequenceOp entry(CollectiveKind kind, std::uint64_t per_token, std::uint64_t bytes, int count) {
  return {.kind = kind, .bytes_per_token = per_token, .bytes = bytes, .count = count};
}

}  // namespace

TEST_CASE("captured sequence: the tp2 fixture's step as 8 AllReduces and the gathered logits", "[capture]") {
  CaptureSettings settings;
  settings.model = capture_model(load_config(std::string(K25_SOURCE_DIR) + "/configs/smoke.yaml").model);
  const CaptureResult capture = analyze_capture(
      read_inspector_paths({std::string(K25_SOURCE_DIR) + "/tests/capture/data/tp2-v40"}), settings);
  const CapturedSequence s = captured_sequence(capture, Dtype::bf16);
  REQUIRE(s.reason.empty());
  // AllGather: the Inspector's 1,000 B per rank and token, times 2 ranks, as nccl-tests sizes it.
  CHECK(s.ops == std::vector<SequenceOp>{entry(CollectiveKind::allreduce, 512, 0, 8),
                                         entry(CollectiveKind::allgather, 2000, 0, 1)});
  CHECK(s.tokens == std::vector<int>{1, 2, 4});
  CHECK(s.steps == 7);
  CHECK(s.ranks == 2);
  CHECK(s.communicator == "0x7f8c496ae9f661");
  CHECK(s.notes ==
        std::vector<std::string>{
            "the Inspector does not record element types: every op is bf16 (the model's activation dtype)"});
}

TEST_CASE("captured sequence: scaling and fixed sizes, parts times ranks, runs merged in order",
          "[capture]") {
  // Steps of 1 and 3 tokens: AllReduce 256 B/token twice, a ReduceScatter whose 256-B part stays, then one
  // more AllReduce and an AllGather of 64 B per rank and token.
  const CapturedSequence s = captured_sequence(
      capture_of(
          4,
          {{{kAllReduce, 256}, {kAllReduce, 256}, {kReduceScatter, 256}, {kAllReduce, 256}, {kAllGather, 64}},
           {{kAllReduce, 768},
            {kAllReduce, 768},
            {kReduceScatter, 256},
            {kAllReduce, 768},
            {kAllGather, 192}}}),
      Dtype::fp32);
  REQUIRE(s.reason.empty());
  std::vector<SequenceOp> want = {
      entry(CollectiveKind::allreduce, 256, 0, 2), entry(CollectiveKind::reducescatter, 0, 1024, 1),
      entry(CollectiveKind::allreduce, 256, 0, 1), entry(CollectiveKind::allgather, 256, 0, 1)};
  for (SequenceOp& op : want) op.dtype = Dtype::fp32;
  CHECK(s.ops == want);
  CHECK(s.tokens == std::vector<int>{1, 3});
  CHECK(s.communicator == "tp");
  CHECK(s.notes.size() == 1);
}

TEST_CASE("captured sequence: one token count seen is said to be an assumption", "[capture]") {
  const CapturedSequence s = captured_sequence(
      capture_of(2, {{{kAllReduce, 512}, {kAllReduce, 512}}, {{kAllReduce, 512}, {kAllReduce, 512}}}),
      Dtype::bf16);
  CHECK(s.ops == std::vector<SequenceOp>{entry(CollectiveKind::allreduce, 256, 0, 2)});
  CHECK(s.tokens == std::vector<int>{2});
  REQUIRE(s.notes.size() == 2);
  CHECK(s.notes[0] ==
        "every decode step seen has 2 token(s): sizes that divide by it are taken to scale with tokens");
}

TEST_CASE("captured sequence: why there is none", "[capture]") {
  SECTION("no model") {
    CaptureResult capture = capture_of(2, {{{kAllReduce, 256}}});
    capture.model.reset();
    CHECK(captured_sequence(capture, Dtype::bf16).reason ==
          "the token count of a step needs the model's bytes per token (--model CONFIG)");
  }
  SECTION("no decode step") {
    CaptureResult capture = capture_of(2, {{{kAllReduce, 256}}});
    capture.communicators[0].step.decode_steps = 0;
    CHECK(captured_sequence(capture, Dtype::bf16).reason ==
          "no communicator holds a decode step (capture.md says why none was found)");
  }
  SECTION("a kind the sequence cannot hold") {
    const CapturedSequence s =
        captured_sequence(capture_of(2, {{{kAllReduce, 256}, {kBroadcast, 64}}}), Dtype::bf16);
    CHECK(s.ops.empty());
    CHECK(
        s.reason ==
        "the decode step of communicator tp holds Broadcast, which model.sequence cannot describe (it holds allreduce, allgather and reducescatter)");
  }
  SECTION("steps of different ops") {
    const CapturedSequence s = captured_sequence(
        capture_of(2, {{{kAllReduce, 256}, {kAllGather, 64}}, {{kAllReduce, 256}, {kAllReduce, 256}}}),
        Dtype::bf16);
    CHECK(
        s.reason ==
        "communicator tp: its decode steps do not all hold the same ops in the same order (allreduce x 1, allgather x 1 in one, allreduce x 2 in another)");
  }
  SECTION("an AllReduce that is no whole number of tokens") {
    const CapturedSequence s = captured_sequence(capture_of(2, {{{kAllReduce, 300}}}), Dtype::bf16);
    CHECK_THAT(
        s.reason,
        Contains("a decode step's largest AllReduce (300 B) is not a whole number of tokens of 256 B"));
  }
  SECTION("a size that neither scales nor stays") {
    const CapturedSequence s = captured_sequence(
        capture_of(2, {{{kAllReduce, 256}, {kAllGather, 100}}, {{kAllReduce, 512}, {kAllGather, 300}}}),
        Dtype::bf16);
    CHECK(
        s.reason ==
        "communicator tp: op 2 of the step (allgather) neither scales with the step's tokens nor keeps one size");
  }
}
