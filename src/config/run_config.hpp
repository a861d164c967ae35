// The one immutable run configuration: model shape, sweep, routing, transport, serve endpoint and output.
// Filled from YAML (config_loader) and then from command-line flags (cli); passed down read-only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/collective_kind.hpp"
#include "common/enum_names.hpp"
#include "common/vocabulary.hpp"

namespace k25 {

enum class RoutingModel { uniform, zipf };
enum class CopyGranularity { per_rank, per_expert };  // DeepEP "normal" vs "low-latency" payload copies
enum class Backend { automatic, nccl, mpi };
enum class ServeApi { chat, completions };
// How expert parallelism moves tokens: All-to-Allv of token copies (DeepEP-like send/recv), or vLLM's
// allgather_reducescatter (dispatch = AllGather of every rank's tokens, combine = ReduceScatter of the sums).
enum class EpBackend { send_recv, allgather_reducescatter };
// The phases a run selects (sweep.phases, --phases): the AllReduce burst (or the op sequence), the MoE
// All-to-All (dispatch and combine), the serving endpoint.
enum class SweepPhase { allreduce, alltoall, serve };
// The serving engine whose profiler the serve phase drives (serve.engine): told from the server, or given.
enum class ServeEngine { automatic, vllm, sglang };

template <>
struct EnumNames<RoutingModel> {
  static constexpr std::array<std::pair<RoutingModel, std::string_view>, 2> values{
      {{RoutingModel::uniform, "uniform"}, {RoutingModel::zipf, "zipf"}}};
};
template <>
struct EnumNames<CopyGranularity> {
  static constexpr std::array<std::pair<CopyGranularity, std::string_view>, 2> values{
      {{CopyGranularity::per_rank, "per_rank"}, {CopyGranularity::per_expert, "per_expert"}}};
};
template <>
struct EnumNames<Backend> {
  static constexpr std::array<std::pair<Backend, std::string_view>, 3> values{
      {{Backend::automatic, "auto"}, {Backend::nccl, "nccl"}, {Backend::mpi, "mpi"}}};
};
template <>
struct EnumNames<EpBackend> {
  static constexpr std::array<std::pair<EpBackend, std::string_view>, 2> values{
      {{EpBackend::send_recv, "send_recv"}, {EpBackend::allgather_reducescatter, "allgather_reducescatter"}}};
};
template <>
struct EnumNames<SweepPhase> {
  static constexpr std::array<std::pair<SweepPhase, std::string_view>, 3> values{
      {{SweepPhase::allreduce, "allreduce"},
       {SweepPhase::alltoall, "alltoall"},
       {SweepPhase::serve, "serve"}}};
};
template <>
struct EnumNames<ServeEngine> {
  static constexpr std::array<std::pair<ServeEngine, std::string_view>, 3> values{
      {{ServeEngine::automatic, "auto"}, {ServeEngine::vllm, "vllm"}, {ServeEngine::sglang, "sglang"}}};
};
template <>
struct EnumNames<ServeApi> {
  static constexpr std::array<std::pair<ServeApi, std::string_view>, 2> values{
      {{ServeApi::chat, "chat"}, {ServeApi::completions, "completions"}}};
};

// Shape of one model's decode step, as far as its communication is concerned.
// One entry of an explicit op sequence (model.sequence): `count` ops, or `per_layer` per decoder layer, of
// one kind. Size as nccl-tests counts it (what the op's result holds on a rank: AllReduce the vector,
// AllGather the gathered buffer, ReduceScatter the input of all parts): bytes_per_token x tokens, or fixed
// `bytes`.
struct SequenceOp {
  CollectiveKind kind = CollectiveKind::allreduce;
  Dtype dtype = Dtype::bf16;
  std::uint64_t bytes_per_token = 0;
  std::uint64_t bytes = 0;
  int count = 1;
  int per_layer = 0;  // > 0: per_layer x num_layers ops (count is then unused)
  std::string name;   // what the ops are, for messages and --dry-run ("logits")
  int line = 0;       // of the entry in the config file
  bool operator==(const SequenceOp&) const = default;
};

struct ModelSpec {
  std::string name;
  int hidden_size = 0;
  int num_layers = 0;
  int dense_layers = 0;  // leading layers with a dense MLP (no MoE All-to-All)
  int routed_experts = 0;
  int experts_per_token = 0;  // top-k
  int shared_experts = 0;
  Dtype activation_dtype = Dtype::bf16;
  int allreduces_per_layer = 2;       // tensor parallelism: after attention o_proj and after the MLP/MoE
  bool embedding_allreduce = false;   // vocab-parallel embedding adds one more AllReduce per step
  Dtype dispatch_dtype = Dtype::fp8;  // fp8 with fp32 scales per `fp8_scale_block` values
  Dtype combine_dtype = Dtype::bf16;
  int fp8_scale_block = 128;
  int dispatch_header_bytes = 16;  // per-copy header of the fp8 dispatch payload (DeepEP)
  // The tensor-parallel ops of one step as the engine issues them; empty: derived from the fields above
  // (allreduces_per_layer x num_layers, plus the embedding's).
  std::vector<SequenceOp> sequence;
  EpBackend ep_backend = EpBackend::send_recv;
  int moe_layers() const { return num_layers - dense_layers; }
};

// How tokens pick experts in the All-to-All plan. Every rank derives the same routing from `seed`.
struct RoutingSpec {
  RoutingModel model = RoutingModel::uniform;
  double zipf_s = 1.0;  // Zipf exponent over experts, used when model == zipf
  CopyGranularity copies = CopyGranularity::per_rank;
  std::uint64_t seed = 42;
};

// vLLM's default CUDA-graph capture sizes for decode: 1, 2, 4, then 8 to 248 in steps of 8, then 256 to 512
// in steps of 16 (51 sizes). vLLM builds them in VllmConfig._set_cudagraph_sizes (vllm/config/vllm.py) as
//   [1, 2, 4] + range(8, min(max + 1, 256), 8) + range(256, max + 1, 16)
// where max (max_cudagraph_capture_size) defaults to min(max_num_seqs * 2, 512) without speculative decoding:
// 512 from max_num_seqs 256 up. A batch is padded to the smallest size >= its token count; "if batch size >
// largest cudagraph_capture_sizes, cudagraph will not be used" (the same function's docstring):
// vllm/v1/cudagraph_dispatcher.py finds no graph for it and dispatches CUDAGraphMode.NONE (eager).
inline std::vector<int> vllm_graph_capture_sizes() {
  std::vector<int> sizes = {1, 2, 4};
  for (int size = 8; size < 256; size += 8) sizes.push_back(size);
  for (int size = 256; size <= 512; size += 16) sizes.push_back(size);
  return sizes;
}

// The decode timing mode's compute gaps: before each collective a rank busies its stream (nccl: a GPU kernel;
// mpi: a host busy wait) for gap_us, plus layer_gap_us spread evenly over the ops of the op's layer in the
// burst, plus a skew drawn per (seed, rank, phase, tokens, op) uniformly from [0, skew_us).
// A live step's shape at one (kind, batch), from a multi-rank capture (--gaps-from capture.json): the compute
// before each op and each rank's start behind the earliest rank's, which the decode mode replays.
struct CapturedShape {
  CollectiveKind kind = CollectiveKind::allreduce;
  int batch = 0;
  double gap_us = 0;                   // before every op, the same on every rank
  std::vector<Stats> rank_arrival_us;  // per captured rank; a replay's rank r takes entry r mod their count
  bool operator==(const CapturedShape&) const = default;
};

struct DecodeGapSpec {
  double gap_us = 0;        // before every op
  double layer_gap_us = 0;  // per decoder layer, split over that layer's ops of the burst
  double skew_us = 0;       // largest extra gap of a rank, to model unequal arrival
  std::uint64_t seed = 1;
  // --gaps-from capture.json: where set, each phase takes the shape of its kind at the nearest batch instead
  // of the gaps and skew above.
  std::vector<CapturedShape> captured;
  std::string gaps_from;  // --gaps-from: how the gaps were derived (a serve report, a capture), in words;
                          // empty: config
  bool operator==(const DecodeGapSpec&) const = default;
};

// What is measured and for how long.
struct SweepSpec {
  std::vector<int> tokens;  // token counts per step (per rank for expert parallelism)
  bool run_allreduce = true;
  bool run_alltoall = true;
  bool run_serve = true;  // runs only when an endpoint is configured
  std::vector<TimingMode> modes = {TimingMode::eager,
                                   TimingMode::graph};  // graph only where the transport can
  // Graph mode pads each token count to the next of these sizes (ascending), as vLLM pads a decode batch.
  std::vector<int> graph_sizes = vllm_graph_capture_sizes();
  Dtype allreduce_dtype = Dtype::bf16;
  bool in_place = false;
  int warmup = 5;       // untimed bursts before the trials of a point (at least 1: NCCL connects lazily)
  int iterations = 50;  // timed trials (whole bursts) per point, at most
  double time_budget_s = 5.0;  // a point also stops once its trials took this long (at least min_iterations)
  int min_iterations = 3;
  int op_iterations = 10;        // trials of the separate per-op timing pass, at most
  bool check = true;             // correctness pass after timing
  bool include_permute = false;  // NCCL: count MoE pack/unpack kernels in the All-to-All step
  bool device_only = false;  // NCCL: hold the stream until the burst is enqueued (no host cost in the step)
  DecodeGapSpec decode;      // decode mode's gaps and skew
  // The AllReduce burst replayed once per backend, interleaved (--allreduce-backends); empty: the transport's
  // own collective alone (nccl on GPUs, mpi on the host transport), as before backends existed.
  std::vector<AllreduceBackend> allreduce_backends;
  AllreduceEpilogue allreduce_epilogue = AllreduceEpilogue::none;  // after every backend's sum
};

struct TransportSpec {
  Backend backend = Backend::automatic;
  double timeout_s = 60.0;  // watchdog: a collective that takes longer aborts the run (exit 3)
  std::string inject_hang;  // test-only: "PHASE:TOKENS:OP[:RANK]" makes that op wait forever
  std::string
      inject_delay;  // test-only: "RANK:US" makes that rank arrive US microseconds late at every trial
  bool emulate_ranks = false;  // test-only: several NCCL ranks per GPU, each its own "host" (NCCL_HOSTID)
  NcclRegister nccl_register = NcclRegister::none;  // nccl: user-buffer registration of send and receive
  // The peer all-reduce backends' largest op in bytes (their buffers' size): vLLM's custom all-reduce's
  // max_size, 8 MiB. A larger op is not run by them, and its row says so.
  int peer_max_bytes = 8 << 20;
  std::string inject_wrong;  // test-only: the AllReduce backend whose sum leaves out this rank's own input
};

// The serving endpoint whose decode latency is the attribution's denominator.
// serve.profile: the levels around a window of which the engine's own profiler runs (none, all, or a list of
// concurrencies).
struct ServeProfileLevels {
  bool all = false;
  std::vector<int> levels;
  bool any() const { return all || !levels.empty(); }
  bool covers(int concurrency) const {
    if (all) return true;
    for (const int level : levels)
      if (level == concurrency) return true;
    return false;
  }
};

struct ServeSpec {
  std::string endpoint;  // base URL, e.g. http://127.0.0.1:8000; empty: serve phase skipped
  ServeApi api = ServeApi::completions;
  std::string model;        // "model" field of the request
  std::string api_key;      // optional bearer token (never written or printed: common/redaction.hpp)
  std::string api_key_env;  // serve.api_key: env:NAME: NAME, whose value api_key holds ("" where not set)
  std::vector<int> concurrency = {1, 2, 4, 8, 16, 32, 64, 128, 256};
  int requests = 0;         // per level; 0: 4 x concurrency, at least 8
  int warmup_requests = 2;  // per level, not counted
  int max_tokens = 64;
  int prompt_tokens = 128;  // approximate: the prompt is built without a tokenizer
  bool ignore_eos = true;
  double request_rate = 0.0;  // requests/s (Poisson arrivals); 0: closed loop at fixed concurrency
  double connect_timeout_s = 10.0;
  double idle_timeout_s = 60.0;  // no byte for this long: the request fails as a timeout
  double request_timeout_s = 600.0;
  std::vector<double> percentiles = {
      99};                     // of TTFT/TPOT/ITL/E2EL, as vllm bench serve's --metric-percentiles
  ServeProfileLevels profile;  // levels profiled by the engine (docs/live-profile.md)
  ServeEngine engine = ServeEngine::automatic;  // whose profiler routes and body are used
  std::string profile_dir;                      // where the server writes its traces (as this host sees it)
  int profile_steps = 20;                       // SGLang's num_steps: engine steps it records at most
  double profile_wait_s = 120;                  // after the stop, how long to wait for complete trace files
  double profile_settle_s = 5;  // fewer ranks' files than their world size: the wait ends this long after
                                // the last one stopped changing
  std::string profile_kernel_classes;  // a kernel-class table tried before the shipped one (capture's rules)
};

struct OutputSpec {
  std::string dir = "k25comm-out";
  bool trace = true;  // Chrome trace-event timeline: each point's median timed trial and a per-op pass trial
  bool plots = true;  // tools/plot-report's PNG figures of the report (--no-plots: not run)
};

struct RunConfig {
  std::string config_path;  // as given; empty for built-in defaults
  std::string config_text;  // the YAML as read, for the report
  ModelSpec model;
  RoutingSpec routing;
  SweepSpec sweep;
  TransportSpec transport;
  ServeSpec serve;
  OutputSpec output;
  std::map<std::string, int> key_lines;  // YAML key path -> 1-based line, for messages about values
};

}  // namespace k25
