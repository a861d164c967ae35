// The plan: the ordered communication ops of one decode step for one token count, with exact byte counts.
// Pure data: no MPI, no GPU. Every rank derives the same plan from the same config and seed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/collective_kind.hpp"
#include "config/run_config.hpp"
#include "plan/byte_matrix.hpp"

namespace k25 {

// One collective of the decode step. `bytes`: the op's size as nccl-tests counts it (AllReduce: the vector
// reduced on every rank; AllGather: the gathered buffer; ReduceScatter: the input of all parts; All-to-All:
// bytes all ranks send in total).
struct CommOp {
  Phase phase;
  int layer;          // decoder layer the op belongs to; -1 for the vocab-parallel embedding AllReduce
  std::size_t bytes;  // AllReduce: bytes of the buffer reduced on every rank. All-to-All: bytes all ranks
                      // send in total
  int matrix_index;   // All-to-All: index into PhasePlan::matrices; -1 for AllReduce
  std::string name;   // what the op is, where the config names it (model.sequence: "logits")
};

// The ops of one phase (AllReduce burst, dispatch burst or combine burst) in issue order.
struct PhasePlan {
  Phase phase;
  int tokens;  // tokens per step (per rank for expert parallelism)
  int ranks;
  Dtype dtype;                     // element type; fp8 dispatch payloads are moved as bytes
  std::size_t bytes_per_copy = 0;  // All-to-All: bytes of one token copy (payload + scales + header)
  std::vector<CommOp> ops;
  std::vector<ByteMatrix> matrices;  // All-to-All: bytes from rank src to rank dst, one matrix per op
  CollectiveKind kind = CollectiveKind::allreduce;  // the collective every op of the phase issues

  // Largest per-rank buffer any op of this phase needs, in bytes: send side and receive side.
  std::size_t max_send_bytes_per_rank() const;
  std::size_t max_recv_bytes_per_rank() const;
};

// All phases of one decode step at one token count; phases appear in the order they are measured.
struct DecodeStepPlan {
  int tokens = 0;
  int ranks = 0;
  std::vector<PhasePlan> phases;
};

// Bytes one AllReduce moves per rank: tokens x hidden x dtype bytes.
std::size_t allreduce_bytes(const ModelSpec& model, Dtype dtype, int tokens);
// Bytes of one token copy of the MoE dispatch (fp8: hidden + hidden/block x 4 scale bytes + header) or
// combine.
std::size_t dispatch_bytes_per_copy(const ModelSpec& model);
std::size_t combine_bytes_per_copy(const ModelSpec& model);
// Number of AllReduces in one decode step: layers x per-layer count (+1 with the embedding AllReduce).
int allreduces_per_step(const ModelSpec& model);

// The tensor-parallel ops of one step at `tokens` as (kind, op) in issue order: model.sequence expanded, or
// the model-derived AllReduces. Throws UsageError (naming the config line) for an entry that makes no op.
struct SequencedOp {
  CollectiveKind kind;
  Dtype dtype;
  CommOp op;
};
std::vector<SequencedOp> tensor_parallel_ops(const ModelSpec& model, const SweepSpec& sweep, int tokens,
                                             int ranks);

// Builds the plan of one decode step. Phases are included as the sweep asks: the tensor-parallel ops (one
// phase per kind, in order of first use: allreduce, allgather, reducescatter) and the MoE dispatch and
// combine.
DecodeStepPlan plan_decode_step(const ModelSpec& model, const RoutingSpec& routing, const SweepSpec& sweep,
                                int tokens, int ranks);

}  // namespace k25
