// Plan byte counts against workload-facts.md's table, op counts per model, and the All-to-All payload sizes.
#include <catch2/catch.hpp>

#include "config/config_loader.hpp"
#include "plan/decode_step_plan.hpp"

using namespace k25;

namespace {
RunConfig kimi() {
  return load_config(std::string(K25_SOURCE_DIR) + "/configs/kimi.yaml");
}
}  // namespace

TEST_CASE("AllReduce bytes per op match workload-facts.md at hidden 7168 bf16", "[plan]") {
  const RunConfig c = kimi();
  const std::vector<std::pair<int, std::size_t>> table = {{1, 14336},   {2, 28672},     {4, 57344},
                                                          {8, 114688},  {16, 229376},   {32, 458752},
                                                          {64, 917504}, {128, 1835008}, {256, 3670016}};
  for (const auto& [tokens, bytes] : table) {
    INFO("tokens " << tokens);
    const DecodeStepPlan plan = plan_decode_step(c.model, c.routing, c.sweep, tokens, 8);
    const PhasePlan& ar = plan.phases.at(0);
    REQUIRE(ar.phase == Phase::allreduce);
    CHECK(ar.ops.size() == 122);
    for (const auto& op : ar.ops) CHECK(op.bytes == bytes);
  }
}

TEST_CASE("MB per step matches the table (x122)", "[plan]") {
  const RunConfig c = kimi();
  const DecodeStepPlan plan = plan_decode_step(c.model, c.routing, c.sweep, 256, 8);
  std::size_t step = 0;
  for (const auto& op : plan.phases.at(0).ops) step += op.bytes;
  CHECK(step == 447741952);  // 447.74 MB
}

TEST_CASE("the embedding AllReduce adds a 123rd op", "[plan]") {
  RunConfig c = kimi();
  c.model.embedding_allreduce = true;
  CHECK(allreduces_per_step(c.model) == 123);
  const DecodeStepPlan plan = plan_decode_step(c.model, c.routing, c.sweep, 1, 8);
  CHECK(plan.phases.at(0).ops.size() == 123);
  CHECK(plan.phases.at(0).ops.front().layer == -1);
}

TEST_CASE("fp32 AllReduce doubles the bytes", "[plan]") {
  RunConfig c = kimi();
  c.sweep.allreduce_dtype = Dtype::fp32;
  CHECK(plan_decode_step(c.model, c.routing, c.sweep, 1, 8).phases.at(0).ops.front().bytes == 28672);
}

TEST_CASE("per-copy payloads follow DeepEP's definitions", "[plan]") {
  const RunConfig c = kimi();
  CHECK(dispatch_bytes_per_copy(c.model) == 7408);  // 7168 + 7168/128 x 4 + 16
  CHECK(combine_bytes_per_copy(c.model) == 14336);  // 7168 x 2
  ModelSpec bf16_dispatch = c.model;
  bf16_dispatch.dispatch_dtype = Dtype::bf16;
  CHECK(dispatch_bytes_per_copy(bf16_dispatch) == 14336);
}

TEST_CASE("Kimi has 60 dispatch and 60 combine ops; per-rank copies bound the bytes", "[plan]") {
  const RunConfig c = kimi();
  const int tokens = 16, ranks = 8;
  const DecodeStepPlan plan = plan_decode_step(c.model, c.routing, c.sweep, tokens, ranks);
  REQUIRE(plan.phases.size() == 3);
  const PhasePlan& dispatch = plan.phases[1];
  const PhasePlan& combine = plan.phases[2];
  CHECK(dispatch.phase == Phase::dispatch);
  CHECK(combine.phase == Phase::combine);
  CHECK(dispatch.ops.size() == 60);
  CHECK(combine.ops.size() == 60);
  CHECK(dispatch.ops.front().layer == 1);
  for (std::size_t i = 0; i < dispatch.matrices.size(); ++i) {
    const ByteMatrix& d = dispatch.matrices[i];
    const ByteMatrix& cb = combine.matrices[i];
    for (int src = 0; src < ranks; ++src) {
      // each token reaches between 1 and min(top-k, ranks) ranks
      const std::uint64_t copies = d.row_sum(src) / 7408;
      CHECK(d.row_sum(src) % 7408 == 0);
      CHECK(copies >= static_cast<std::uint64_t>(tokens));
      CHECK(copies <= static_cast<std::uint64_t>(tokens) * 8);
      for (int dst = 0; dst < ranks; ++dst) CHECK(cb.at(dst, src) == d.at(src, dst) / 7408 * 14336);
    }
    CHECK(dispatch.ops[i].bytes == d.total());
  }
}

TEST_CASE("per-expert copies send exactly tokens x top-k copies per rank", "[plan]") {
  RunConfig c = kimi();
  c.routing.copies = CopyGranularity::per_expert;
  const DecodeStepPlan plan = plan_decode_step(c.model, c.routing, c.sweep, 4, 8);
  for (const auto& m : plan.phases[1].matrices)
    for (int src = 0; src < 8; ++src) CHECK(m.row_sum(src) == 4u * 8u * 7408u);
}

TEST_CASE("phases can be left out", "[plan]") {
  RunConfig c = kimi();
  c.sweep.run_alltoall = false;
  CHECK(plan_decode_step(c.model, c.routing, c.sweep, 1, 8).phases.size() == 1);
  c.sweep.run_alltoall = true;
  c.sweep.run_allreduce = false;
  CHECK(plan_decode_step(c.model, c.routing, c.sweep, 1, 8).phases.size() == 2);
}

TEST_CASE("buffer sizes are the largest any op needs", "[plan]") {
  const RunConfig c = kimi();
  const DecodeStepPlan plan = plan_decode_step(c.model, c.routing, c.sweep, 8, 4);
  CHECK(plan.phases[0].max_send_bytes_per_rank() == 114688);
  std::uint64_t largest = 0;
  for (const auto& m : plan.phases[1].matrices)
    for (int r = 0; r < 4; ++r) largest = std::max(largest, m.row_sum(r));
  CHECK(plan.phases[1].max_send_bytes_per_rank() == largest);
}
