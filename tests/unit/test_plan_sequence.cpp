// An explicit op sequence and the allgather_reducescatter backend in the plan: phases per kind, op order,
// exact sizes (rounded to whole parts per rank), and the op descriptors each rank gets.
#include <catch2/catch.hpp>

#include "common/error.hpp"
#include "config/config_loader.hpp"
#include "plan/decode_step_plan.hpp"
#include "plan/rank_ops.hpp"

using namespace k25;

namespace {

ModelSpec sequenced_model() {
  ModelSpec m;
  m.name = "seq";
  m.hidden_size = 256;
  m.num_layers = 3;
  m.dense_layers = 1;
  m.routed_experts = 8;
  m.experts_per_token = 2;
  m.dispatch_dtype = Dtype::bf16;
  m.sequence = {{CollectiveKind::allreduce, Dtype::bf16, 512, 0, 1, 0, "embedding", 0},
                {CollectiveKind::allreduce, Dtype::bf16, 512, 0, 1, 2, "", 0},
                {CollectiveKind::allgather, Dtype::bf16, 1000, 0, 1, 0, "logits", 0},
                {CollectiveKind::reducescatter, Dtype::fp32, 0, 4096, 2, 0, "", 0}};
  return m;
}

}  // namespace

TEST_CASE("a sequence becomes one phase per kind, its ops in issue order, sizes in whole parts",
          "[plan][sequence]") {
  SweepSpec sweep;
  sweep.run_alltoall = false;
  const DecodeStepPlan plan = plan_decode_step(sequenced_model(), {}, sweep, 3, 4);
  REQUIRE(plan.phases.size() == 3);
  const PhasePlan& allreduce = plan.phases[0];
  CHECK(allreduce.phase == Phase::allreduce);
  CHECK(allreduce.kind == CollectiveKind::allreduce);
  REQUIRE(allreduce.ops.size() == 1 + 2 * 3);
  CHECK(allreduce.ops[0].name == "embedding");
  CHECK(allreduce.ops[0].layer == -1);
  CHECK(allreduce.ops[1].layer == 0);
  CHECK(allreduce.ops[6].layer == 2);
  CHECK(allreduce.ops[3].bytes == 1536);  // 512 x 3 tokens
  const PhasePlan& gather = plan.phases[1];
  CHECK(gather.phase == Phase::allgather);
  REQUIRE(gather.ops.size() == 1);
  CHECK(gather.ops[0].bytes == 3000);  // 1000 x 3 = 3000, a whole number of bf16 parts on 4 ranks (8 B)
  CHECK(gather.max_send_bytes_per_rank() == 750);
  const PhasePlan& scatter = plan.phases[2];
  CHECK(scatter.phase == Phase::reducescatter);
  CHECK(scatter.dtype == Dtype::fp32);
  CHECK(scatter.ops.size() == 2);
  CHECK(scatter.ops[0].bytes == 4096);
  CHECK(scatter.max_recv_bytes_per_rank() == 1024);

  const OpBurst g = burst_for_rank(gather, 1, {});
  CHECK(g.ops[0].kind == CollectiveKind::allgather);
  CHECK(g.ops[0].count == 375);  // 3000 B / 2 B / 4 ranks: one rank's part
  CHECK(g.ops[0].label == "logits");
  CHECK(g.ops[0].recv_buffer_bytes(4) == 3000);
  const OpBurst r = burst_for_rank(scatter, 1, {});
  CHECK(r.ops[0].count == 256);  // 4096 B / 4 B / 4 ranks
  CHECK(r.ops[0].send_buffer_bytes(4) == 4096);
  CHECK(r.ops[0].recv_buffer_bytes(4) == 1024);
}

TEST_CASE("AllGather sizes round up to whole elements on every rank", "[plan][sequence]") {
  ModelSpec m = sequenced_model();
  m.sequence = {{CollectiveKind::allgather, Dtype::bf16, 1001, 0, 1, 0, "", 0}};
  SweepSpec sweep;
  sweep.run_alltoall = false;
  const DecodeStepPlan plan = plan_decode_step(m, {}, sweep, 1, 3);
  CHECK(plan.phases.at(0).ops.at(0).bytes == 1002);  // 3 ranks x 2 B: 167 elements each
}

TEST_CASE("one element type per kind in a sequence", "[plan][sequence]") {
  ModelSpec m = sequenced_model();
  m.sequence.push_back({CollectiveKind::allreduce, Dtype::fp32, 1024, 0, 1, 0, "", 0});
  SweepSpec sweep;
  CHECK_THROWS_AS(plan_decode_step(m, {}, sweep, 1, 4), UsageError);
}

TEST_CASE("allgather_reducescatter: dispatch gathers every rank's tokens, combine scatters the sums",
          "[plan][ep]") {
  ModelSpec m = sequenced_model();
  m.sequence.clear();
  m.ep_backend = EpBackend::allgather_reducescatter;
  SweepSpec sweep;
  sweep.run_allreduce = false;
  const DecodeStepPlan plan = plan_decode_step(m, {}, sweep, 5, 4);
  REQUIRE(plan.phases.size() == 2);
  const PhasePlan& dispatch = plan.phases[0];
  CHECK(dispatch.phase == Phase::dispatch);
  CHECK(dispatch.kind == CollectiveKind::allgather);
  CHECK(dispatch.ops.size() == 2);                  // MoE layers
  CHECK(dispatch.ops[0].bytes == 4 * 5 * 256 * 2);  // ranks x tokens per rank x hidden x bf16
  CHECK(dispatch.matrices.empty());
  const PhasePlan& combine = plan.phases[1];
  CHECK(combine.kind == CollectiveKind::reducescatter);
  CHECK(combine.ops[1].bytes == 4 * 5 * 256 * 2);
  const OpBurst c = burst_for_rank(combine, 2, {true, std::nullopt});
  CHECK(c.ops[0].count == 5 * 256);  // this rank's tokens x hidden
  CHECK_FALSE(c.ops[0].sum_after);   // no permute around a ReduceScatter
}

TEST_CASE("the sequence loads from YAML and round-trips through the effective config", "[plan][sequence]") {
  const RunConfig config = parse_config(R"(model:
  name: seq
  hidden_size: 256
  num_layers: 3
  routed_experts: 8
  experts_per_token: 2
  sequence:
    - {kind: allreduce, dtype: bf16, bytes_per_token: 512, per_layer: 2}
    - {kind: allgather, dtype: bf16, bytes_per_token: 4096, count: 1, name: logits}
expert_parallel:
  backend: allgather_reducescatter
)",
                                        "seq.yaml");
  REQUIRE(config.model.sequence.size() == 2);
  CHECK(config.model.sequence[0].per_layer == 2);
  CHECK(config.model.sequence[1].name == "logits");
  CHECK(config.model.sequence[1].line == 9);
  CHECK(config.model.ep_backend == EpBackend::allgather_reducescatter);
  CHECK(allreduces_per_step(config.model) == 6);
}
