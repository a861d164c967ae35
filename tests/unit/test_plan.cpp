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

TEST_CASE("Kimi has 60 dispatch and 60 combine ops, per-rank copies bound the bytes", "[plan]") {
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

namespace {

// A small model whose routing is fixed whatever the seed: every token picks all 8 experts (2 per rank on 4
// ranks), so each token reaches every rank. Hidden 256: an fp8 dispatch copy is 256 + 256/128 x 4 scale bytes
// + 16 header bytes = 280 bytes, a bf16 combine copy 256 x 2 = 512 bytes.
ModelSpec every_expert_model() {
  ModelSpec model;
  model.name = "every-expert";
  model.hidden_size = 256;
  model.num_layers = 3;
  model.dense_layers = 1;
  model.routed_experts = 8;
  model.experts_per_token = 8;
  model.allreduces_per_layer = 2;
  return model;
}

}  // namespace

TEST_CASE("buffer sizes per rank: exact bytes of a small model, by hand", "[plan]") {
  const ModelSpec model = every_expert_model();
  RoutingSpec routing;
  SweepSpec sweep;
  const int tokens = 5, ranks = 4;
  REQUIRE(dispatch_bytes_per_copy(model) == 280);
  REQUIRE(combine_bytes_per_copy(model) == 512);

  SECTION("one copy per token and destination rank") {
    routing.copies = CopyGranularity::per_rank;
    const DecodeStepPlan plan = plan_decode_step(model, routing, sweep, tokens, ranks);
    REQUIRE(plan.phases.size() == 3);
    // AllReduce: 5 tokens x 256 x 2 bytes (bf16), the same buffer sent and received.
    CHECK(plan.phases[0].max_send_bytes_per_rank() == 2560);
    CHECK(plan.phases[0].max_recv_bytes_per_rank() == 2560);
    // Dispatch: 5 tokens x 4 destination ranks = 20 copies of 280 bytes out of each rank, and 4 source ranks
    // x 5 tokens = 20 copies into each rank.
    CHECK(plan.phases[1].max_send_bytes_per_rank() == 5600);
    CHECK(plan.phases[1].max_recv_bytes_per_rank() == 5600);
    // Combine: the same 20 copies back, 512 bytes each.
    CHECK(plan.phases[2].max_send_bytes_per_rank() == 10240);
    CHECK(plan.phases[2].max_recv_bytes_per_rank() == 10240);
    // 3 layers x 2 AllReduces; 2 MoE layers, each op moving 4 ranks x 20 copies in all.
    CHECK(plan.phases[0].ops.size() == 6);
    REQUIRE(plan.phases[1].ops.size() == 2);
    for (const CommOp& op : plan.phases[1].ops) CHECK(op.bytes == 22400);
    for (const CommOp& op : plan.phases[2].ops) CHECK(op.bytes == 40960);
  }

  SECTION("one copy per token and expert") {
    routing.copies = CopyGranularity::per_expert;
    const DecodeStepPlan plan = plan_decode_step(model, routing, sweep, tokens, ranks);
    REQUIRE(plan.phases.size() == 3);
    // Dispatch: 5 tokens x 8 experts = 40 copies of 280 bytes out; 4 ranks x 5 tokens x 2 local experts = 40
    // in.
    CHECK(plan.phases[1].max_send_bytes_per_rank() == 11200);
    CHECK(plan.phases[1].max_recv_bytes_per_rank() == 11200);
    CHECK(plan.phases[2].max_send_bytes_per_rank() == 20480);
    CHECK(plan.phases[2].max_recv_bytes_per_rank() == 20480);
  }

  SECTION("fp32 AllReduce doubles its buffer; a copy's bytes follow the dispatch dtype") {
    sweep.allreduce_dtype = Dtype::fp32;
    ModelSpec bf16_dispatch = model;
    bf16_dispatch.dispatch_dtype = Dtype::bf16;
    const DecodeStepPlan plan = plan_decode_step(bf16_dispatch, routing, sweep, tokens, ranks);
    CHECK(plan.phases[0].max_send_bytes_per_rank() == 5120);   // 5 x 256 x 4
    CHECK(plan.phases[1].max_send_bytes_per_rank() == 10240);  // 20 copies x 256 x 2
  }
}
