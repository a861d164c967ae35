// The vocabulary every stage speaks, below all of them: element types, the phases of a decode step, timing
// modes, the STATS of a distribution, and the spans of a traced trial. Names as YAML, the command line and
// report.json write them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/enum_names.hpp"

namespace k25 {

enum class Dtype { bf16, fp32, fp8 };
// The part of a decode step a burst replays (the report's "phase"): the AllReduce burst of tensor
// parallelism, the MoE dispatch and combine of expert parallelism, and the AllGathers and ReduceScatters of
// an explicit op sequence (model.sequence).
enum class Phase { allreduce, dispatch, combine, allgather, reducescatter };
// eager: ops launched one by one, back to back; graph: the burst captured once and replayed (CUDA graphs);
// decode: eager, with each op preceded by a compute gap (GPU busy kernel / host busy wait) and a seeded
// per-rank skew, so that ranks arrive at each collective as they do between the GEMMs of a real step.
enum class TimingMode { eager, graph, decode };
// NCCL user-buffer registration of the send and receive buffers (--nccl-register), as nccl-tests -R and vLLM
// do: none (cudaMalloc, NCCL copies through its own buffers), local (ncclMemAlloc + ncclCommRegister),
// symmetric (ncclMemAlloc + ncclCommWindowRegister with NCCL_WIN_COLL_SYMMETRIC, NCCL >= 2.27.3).
enum class NcclRegister { none, local, symmetric };
// Who runs the AllReduce burst (--allreduce-backends): the library collective of the transport (nccl on GPUs,
// mpi on the host transport), or a peer all-reduce through the ranks' shared buffers: one-shot push (each
// rank writes its input into every peer's buffer, then reduces locally), two-shot (reduce-scatter, then
// all-gather, through the peers' buffers), one-shot pull (each rank reads the peers' buffers).
enum class AllreduceBackend { nccl, mpi, oneshot, twoshot, oneshot_pull };
// What every backend does after the sum (--allreduce-epilogue): nothing, or the residual add and RMSNorm that
// engines fuse into the all-reduce (NCCL: a separate kernel after it; the peer backends: fused).
enum class AllreduceEpilogue { none, add_rmsnorm };

template <>
struct EnumNames<Dtype> {
  static constexpr std::array<std::pair<Dtype, std::string_view>, 3> values{
      {{Dtype::bf16, "bf16"}, {Dtype::fp32, "fp32"}, {Dtype::fp8, "fp8"}}};
};
template <>
struct EnumNames<Phase> {
  static constexpr std::array<std::pair<Phase, std::string_view>, 5> values{
      {{Phase::allreduce, "allreduce"},
       {Phase::dispatch, "dispatch"},
       {Phase::combine, "combine"},
       {Phase::allgather, "allgather"},
       {Phase::reducescatter, "reducescatter"}}};
};
template <>
struct EnumNames<TimingMode> {
  static constexpr std::array<std::pair<TimingMode, std::string_view>, 3> values{
      {{TimingMode::eager, "eager"}, {TimingMode::graph, "graph"}, {TimingMode::decode, "decode"}}};
};

template <>
struct EnumNames<NcclRegister> {
  static constexpr std::array<std::pair<NcclRegister, std::string_view>, 3> values{
      {{NcclRegister::none, "none"}, {NcclRegister::local, "local"}, {NcclRegister::symmetric, "symmetric"}}};
};

template <>
struct EnumNames<AllreduceBackend> {
  static constexpr std::array<std::pair<AllreduceBackend, std::string_view>, 5> values{
      {{AllreduceBackend::nccl, "nccl"},
       {AllreduceBackend::mpi, "mpi"},
       {AllreduceBackend::oneshot, "oneshot"},
       {AllreduceBackend::twoshot, "twoshot"},
       {AllreduceBackend::oneshot_pull, "oneshot-pull"}}};
};
template <>
struct EnumNames<AllreduceEpilogue> {
  static constexpr std::array<std::pair<AllreduceEpilogue, std::string_view>, 2> values{
      {{AllreduceEpilogue::none, "none"}, {AllreduceEpilogue::add_rmsnorm, "add-rmsnorm"}}};
};

// Bytes of one element: bf16 2, fp32 4, fp8 1.
constexpr std::size_t dtype_bytes(Dtype dtype) {
  return dtype == Dtype::fp32 ? 4 : dtype == Dtype::bf16 ? 2 : 1;
}

// Distribution summary of a sample set (the report's STATS object), microseconds or milliseconds as the field
// says. Computed by summarize() (common/stats.hpp).
struct Stats {
  double min = 0, p50 = 0, p90 = 0, p99 = 0, max = 0, mean = 0;
  bool operator==(const Stats&) const = default;
};
void to_json(nlohmann::json& j, const Stats& s);
void from_json(const nlohmann::json& j, Stats& s);

// One op of a traced trial on one rank, from the rank's trial start (its own clock, after the trial's
// barrier).
struct OpSpan {
  int op_index = 0;
  int layer = 0;
  double start_us = 0;
  double end_us = 0;
  std::uint64_t bytes =
      0;  // this rank's bytes of the op (AllReduce: reduced; All-to-All: sent); 0: not known
};

// One rank's part of a timed trial of the whole step, from the exit of the trial's barrier on that rank.
struct StepSpan {
  double arrival_us = 0;            // barrier exit to the burst's first timestamp (host clock)
  double step_us = 0;               // the burst between its two timestamps (the transport's clock)
  std::optional<double> launch_us;  // host time to enqueue the burst; absent where the launch is the step
  std::uint64_t bytes = 0;          // this rank's bytes over the whole burst
};

}  // namespace k25
