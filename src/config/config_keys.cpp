// The table of config keys (see config_keys.hpp) and what is derived from it.
#include "config/config_keys.hpp"

#include <fmt/format.h>

namespace k25 {
namespace {

using nlohmann::json;

// model.sequence: a list of mappings, each one kind of op (see SequenceOp); errors name the entry's line.
std::vector<SequenceOp> read_sequence(const ConfigReader& in, const YAML::Node& list,
                                      const std::string& key) {
  if (list.IsNull()) return {};  // as report.json writes "no sequence"
  if (!list.IsSequence() || list.size() == 0) in.fail(list, key, "expected a non-empty list of ops");
  std::vector<SequenceOp> ops;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node entry = list[i];
    const std::string at = fmt::format("{}[{}]", key, i);
    if (!entry.IsMap())
      in.fail(entry, at, "expected a mapping {kind, dtype, bytes_per_token | bytes, count | per_layer}");
    SequenceOp op;
    op.line = line_of(entry);
    for (const auto& field : entry) {
      const auto name = field.first.as<std::string>();
      const std::string where = at + "." + name;
      if (name == "kind")
        op.kind =
            in.choice(field.second, where,
                      {CollectiveKind::allreduce, CollectiveKind::allgather, CollectiveKind::reducescatter});
      else if (name == "dtype")
        op.dtype = in.choice(field.second, where, {Dtype::bf16, Dtype::fp32, Dtype::fp8});
      else if (name == "bytes_per_token")
        op.bytes_per_token = static_cast<std::uint64_t>(in.integer(field.second, where, 1, 1LL << 40));
      else if (name == "bytes")
        op.bytes = static_cast<std::uint64_t>(in.integer(field.second, where, 1, 1LL << 40));
      else if (name == "count")
        op.count = in.integer(field.second, where, 1, 100000);
      else if (name == "per_layer")
        op.per_layer = in.integer(field.second, where, 1, 64);
      else if (name == "name")
        op.name = in.text(field.second, where);
      else
        in.fail(field.first, where,
                "unknown key (known keys here: bytes, bytes_per_token, count, dtype, kind, name, per_layer)");
    }
    if (!entry["kind"]) in.fail(entry, at, "no kind (allreduce, allgather or reducescatter)");
    if ((op.bytes_per_token > 0) == (op.bytes > 0))
      in.fail(entry, at, "give exactly one of bytes_per_token and bytes");
    if (entry["count"] && entry["per_layer"]) in.fail(entry, at, "give count or per_layer, not both");
    if (kind_info(op.kind).reduces && op.dtype == Dtype::fp8)
      in.fail(entry["dtype"], at + ".dtype",
              fmt::format("a {} sums: bf16 or fp32, not fp8", to_string(op.kind)));
    const std::uint64_t unit = op.bytes_per_token > 0 ? op.bytes_per_token : op.bytes;
    if (unit % dtype_bytes(op.dtype) != 0)
      in.fail(entry, at,
              fmt::format("{} bytes is not a whole number of {} elements", unit, to_string(op.dtype)));
    ops.push_back(std::move(op));
  }
  return ops;
}

json sequence_json(const std::vector<SequenceOp>& ops) {
  if (ops.empty()) return json(nullptr);
  json list = json::array();
  for (const SequenceOp& op : ops) {
    json entry{{"kind", to_string(op.kind)}, {"dtype", to_string(op.dtype)}};
    if (op.bytes_per_token > 0)
      entry["bytes_per_token"] = op.bytes_per_token;
    else
      entry["bytes"] = op.bytes;
    if (op.per_layer > 0)
      entry["per_layer"] = op.per_layer;
    else
      entry["count"] = op.count;
    if (!op.name.empty()) entry["name"] = op.name;
    list.push_back(entry);
  }
  return list;
}

// clang-format off
const ConfigKey kKeys[] = {
  // model: the shape of one decode step's communication
  {"model", "name", "string", "model name, as reports and compare show it", true,
   [](auto& in, auto& v, auto& k, auto& c) { c.model.name = in.text(v, k); },
   [](auto& c) { return json(c.model.name); }},
  {"model", "hidden_size", "integer 1..1048576", "hidden size: an AllReduce moves tokens x hidden_size elements", true,
   [](auto& in, auto& v, auto& k, auto& c) { c.model.hidden_size = in.integer(v, k, 1, 1 << 20); },
   [](auto& c) { return json(c.model.hidden_size); }},
  {"model", "num_layers", "integer 1..4096", "decoder layers", true,
   [](auto& in, auto& v, auto& k, auto& c) { c.model.num_layers = in.integer(v, k, 1, 4096); },
   [](auto& c) { return json(c.model.num_layers); }},
  {"model", "dense_layers", "integer 0..4096", "leading layers with a dense MLP (no MoE All-to-All)", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.model.dense_layers = in.integer(v, k, 0, 4096); },
   [](auto& c) { return json(c.model.dense_layers); }},
  {"model", "routed_experts", "integer 1..65536", "routed experts, spread evenly over the ranks", true,
   [](auto& in, auto& v, auto& k, auto& c) { c.model.routed_experts = in.integer(v, k, 1, 1 << 16); },
   [](auto& c) { return json(c.model.routed_experts); }},
  {"model", "experts_per_token", "integer 1..65536", "top-k experts per token", true,
   [](auto& in, auto& v, auto& k, auto& c) { c.model.experts_per_token = in.integer(v, k, 1, 1 << 16); },
   [](auto& c) { return json(c.model.experts_per_token); }},
  {"model", "shared_experts", "integer 0..64", "shared experts (reduced with the routed ones: no extra op)", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.model.shared_experts = in.integer(v, k, 0, 64); },
   [](auto& c) { return json(c.model.shared_experts); }},
  {"model", "activation_dtype", "bf16 | fp32", "activation element type; the AllReduce's unless sweep.allreduce_dtype", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.model.activation_dtype = in.choice(v, k, {Dtype::bf16, Dtype::fp32}); },
   [](auto& c) { return json(to_string(c.model.activation_dtype)); }},
  {"model", "allreduces_per_layer", "integer 0..64", "tensor-parallel AllReduces per layer (after attention, after the MLP/MoE)", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.model.allreduces_per_layer = in.integer(v, k, 0, 64); },
   [](auto& c) { return json(c.model.allreduces_per_layer); }},
  {"model", "embedding_allreduce", "true | false", "one more AllReduce per step for the vocab-parallel embedding", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.model.embedding_allreduce = in.boolean(v, k); },
   [](auto& c) { return json(c.model.embedding_allreduce); }},
  {"model", "dispatch_dtype", "fp8 | bf16", "MoE dispatch payload type (fp8 with fp32 scales and a header)", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.model.dispatch_dtype = in.choice(v, k, {Dtype::bf16, Dtype::fp8}); },
   [](auto& c) { return json(to_string(c.model.dispatch_dtype)); }},
  {"model", "combine_dtype", "bf16 | fp32", "MoE combine payload type", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.model.combine_dtype = in.choice(v, k, {Dtype::bf16, Dtype::fp32}); },
   [](auto& c) { return json(to_string(c.model.combine_dtype)); }},
  {"model", "fp8_scale_block", "integer 1..65536", "values per fp32 scale of the fp8 dispatch", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.model.fp8_scale_block = in.integer(v, k, 1, 1 << 16); },
   [](auto& c) { return json(c.model.fp8_scale_block); }},
  {"model", "dispatch_header_bytes", "integer 0..4096", "per-copy header bytes of the fp8 dispatch (DeepEP: 16)", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.model.dispatch_header_bytes = in.integer(v, k, 0, 4096); },
   [](auto& c) { return json(c.model.dispatch_header_bytes); }},
  {"model", "sequence", "list of {kind, dtype, bytes_per_token or bytes, count or per_layer, name}",
   "the tensor-parallel ops of a step as the engine issues them (kinds allreduce, allgather, reducescatter; bytes as nccl-tests sizes them); replaces allreduces_per_layer and embedding_allreduce", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.model.sequence = read_sequence(in, v, k); },
   [](auto& c) { return sequence_json(c.model.sequence); }},

  // expert_parallel
  {"expert_parallel", "backend", "send_recv | allgather_reducescatter", "how the MoE dispatch and combine move tokens: All-to-Allv of copies, or vLLM's AllGather + ReduceScatter", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.model.ep_backend = in.choice(v, k, {EpBackend::send_recv, EpBackend::allgather_reducescatter}); },
   [](auto& c) { return json(to_string(c.model.ep_backend)); }},

  // routing: which experts tokens pick (the All-to-All byte matrices)
  {"routing", "model", "uniform | zipf", "routing model", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.routing.model = in.choice(v, k, {RoutingModel::uniform, RoutingModel::zipf}); },
   [](auto& c) { return json(to_string(c.routing.model)); }},
  {"routing", "zipf_s", "number 0..10", "Zipf exponent over a seeded permutation of the experts", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.routing.zipf_s = in.number(v, k, 0.0, 10.0); },
   [](auto& c) { return json(c.routing.zipf_s); }},
  {"routing", "copies", "per_rank | per_expert", "one copy per (token, rank) (DeepEP normal) or per (token, expert) (low-latency)", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.routing.copies = in.choice(v, k, {CopyGranularity::per_rank, CopyGranularity::per_expert}); },
   [](auto& c) { return json(to_string(c.routing.copies)); }},
  {"routing", "seed", "integer >= 0", "seed every rank derives the same routing from", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.routing.seed = in.unsigned_integer(v, k); },
   [](auto& c) { return json(c.routing.seed); }},

  // sweep: what is measured and for how long
  {"sweep", "tokens", "list of integers 1..65536", "token counts: per decode step for AllReduce, per rank for dispatch/combine", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.sweep.tokens = in.integer_list(v, k, 1, 65536); },
   [](auto& c) { return json(c.sweep.tokens); }},
  {"sweep", "phases", "list of allreduce, alltoall, serve", "phases to run", false,
   [](auto& in, auto& v, auto& k, auto& c) {
     if (const std::string bad = set_phases(c.sweep, in.text_list(v, k)); !bad.empty())
       in.fail(v, k, fmt::format("'{}' is not one of: allreduce, alltoall, serve", bad));
   },
   [](auto& c) { return json(phase_names(c.sweep)); }},
  {"sweep", "modes", "list of eager, graph, decode", "timing modes (graph: CUDA graphs, nccl transport; decode: eager with a compute gap before each op, sweep.decode_*)", false,
   [](auto& in, auto& v, auto& k, auto& c) {
     if (const std::string bad = set_modes(c.sweep, in.text_list(v, k)); !bad.empty())
       in.fail(v, k, fmt::format("'{}' is not one of: {}", bad, enum_name_list<TimingMode>()));
   },
   [](auto& c) {
     json modes = json::array();
     for (TimingMode mode : c.sweep.modes) modes.push_back(to_string(mode));
     return modes;
   }},
  {"sweep", "graph_sizes", "ascending list of integers 1..65536", "CUDA-graph capture sizes: graph mode pads a token count to the next one (default vLLM's: 1, 2, 4, 8..248 by 8, 256..512 by 16); a larger count is not padded", false,
   [](auto& in, auto& v, auto& k, auto& c) {
     c.sweep.graph_sizes = in.integer_list(v, k, 1, 65536);
     for (std::size_t i = 1; i < c.sweep.graph_sizes.size(); ++i)
       if (c.sweep.graph_sizes[i] <= c.sweep.graph_sizes[i - 1])
         in.fail(v[i], k, fmt::format("sizes must be strictly ascending: {} follows {}", c.sweep.graph_sizes[i],
                                      c.sweep.graph_sizes[i - 1]));
   },
   [](auto& c) { return json(c.sweep.graph_sizes); }},
  {"sweep", "allreduce_dtype", "bf16 | fp32", "AllReduce element type (default: model.activation_dtype)", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.sweep.allreduce_dtype = in.choice(v, k, {Dtype::bf16, Dtype::fp32}); },
   [](auto& c) { return json(to_string(c.sweep.allreduce_dtype)); }},
  {"sweep", "in_place", "true | false", "AllReduce in place (default out of place)", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.sweep.in_place = in.boolean(v, k); },
   [](auto& c) { return json(c.sweep.in_place); }},
  {"sweep", "warmup", "integer 1..1000000", "untimed bursts before each point (the first connect NCCL's peers)", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.sweep.warmup = in.integer(v, k, 1, 1000000); },
   [](auto& c) { return json(c.sweep.warmup); }},
  {"sweep", "iterations", "integer 1..10000000", "timed trials (whole bursts) per point, at most", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.sweep.iterations = in.integer(v, k, 1, 10000000); },
   [](auto& c) { return json(c.sweep.iterations); }},
  {"sweep", "min_iterations", "integer 1..10000000", "timed trials per point at least, whatever the time budget", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.sweep.min_iterations = in.integer(v, k, 1, 10000000); },
   [](auto& c) { return json(c.sweep.min_iterations); }},
  {"sweep", "op_iterations", "integer 0..10000000", "trials of the per-op pass, at most (0: none)", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.sweep.op_iterations = in.integer(v, k, 0, 10000000); },
   [](auto& c) { return json(c.sweep.op_iterations); }},
  {"sweep", "time_budget_s", "number 0.001..1000000", "seconds per point after which trials stop", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.sweep.time_budget_s = in.number(v, k, 1e-3, 1e6); },
   [](auto& c) { return json(c.sweep.time_budget_s); }},
  {"sweep", "check", "true | false", "correctness pass after timing", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.sweep.check = in.boolean(v, k); },
   [](auto& c) { return json(c.sweep.check); }},
  {"sweep", "include_permute", "true | false", "nccl: count the MoE pack/unpack kernels in the All-to-All step", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.sweep.include_permute = in.boolean(v, k); },
   [](auto& c) { return json(c.sweep.include_permute); }},
  {"sweep", "decode_gap_us", "number 0..1000000", "decode mode: compute gap before every op, in us (GPU busy kernel on nccl, host busy wait on mpi)", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.sweep.decode.gap_us = in.number(v, k, 0.0, 1e6); },
   [](auto& c) { return json(c.sweep.decode.gap_us); }},
  {"sweep", "decode_layer_gap_us", "number 0..1000000", "decode mode: compute per decoder layer, in us, split evenly over that layer's ops of a burst (--gaps-from derives it from a serve report)", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.sweep.decode.layer_gap_us = in.number(v, k, 0.0, 1e6); },
   [](auto& c) { return json(c.sweep.decode.layer_gap_us); }},
  {"sweep", "decode_skew_us", "number 0..1000000", "decode mode: each rank adds a seeded uniform skew in [0, this) to each gap (unequal arrival)", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.sweep.decode.skew_us = in.number(v, k, 0.0, 1e6); },
   [](auto& c) { return json(c.sweep.decode.skew_us); }},
  {"sweep", "decode_seed", "integer >= 0", "decode mode: seed of the skew (same seed, same skews on every run)", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.sweep.decode.seed = in.unsigned_integer(v, k); },
   [](auto& c) { return json(c.sweep.decode.seed); }},
  {"sweep", "device_only", "true | false", "nccl: hold the stream until each burst is enqueued (no host launch cost)", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.sweep.device_only = in.boolean(v, k); },
   [](auto& c) { return json(c.sweep.device_only); }},

  // transport
  {"transport", "backend", "auto | nccl | mpi", "transport (auto: nccl where every rank has a GPU of its own)", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.transport.backend = in.choice(v, k, {Backend::automatic, Backend::nccl, Backend::mpi}); },
   [](auto& c) { return json(to_string(c.transport.backend)); }},
  {"transport", "timeout_s", "number 0.1..86400", "watchdog: a collective that takes longer ends the run (exit 3)", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.transport.timeout_s = in.number(v, k, 0.1, 86400); },
   [](auto& c) { return json(c.transport.timeout_s); }},
  {"transport", "emulate_ranks", "true | false", "test only: several nccl ranks per GPU, each its own NCCL host (--emulate-ranks)", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.transport.emulate_ranks = in.boolean(v, k); },
   [](auto& c) { return json(c.transport.emulate_ranks); }},
  {"transport", "nccl_register", "none | local | symmetric", "nccl: register the send and receive buffers with NCCL (ncclMemAlloc + ncclCommRegister, or ncclCommWindowRegister symmetric), as nccl-tests -R", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.transport.nccl_register = in.choice(v, k, {NcclRegister::none, NcclRegister::local, NcclRegister::symmetric}); },
   [](auto& c) { return json(to_string(c.transport.nccl_register)); }},
  {"transport", "inject_hang", "PHASE:TOKENS:OP[:RANK]", "test only: that op waits forever (--inject-hang)", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.transport.inject_hang = in.text(v, k); },
   [](auto& c) { return json(c.transport.inject_hang); }},
  {"transport", "inject_delay", "RANK:US", "test only: that rank arrives US microseconds late at every trial (--inject-delay)", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.transport.inject_delay = in.text(v, k); },
   [](auto& c) { return json(c.transport.inject_delay); }},

  // serve: the endpoint whose decode latency is the attribution's denominator
  {"serve", "endpoint", "URL", "base URL (\"/v1\" accepted); empty: the serve phase is skipped", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.serve.endpoint = in.text(v, k); },
   [](auto& c) { return json(c.serve.endpoint); }},
  {"serve", "api", "completions | chat", "/v1/completions or /v1/chat/completions", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.serve.api = in.choice(v, k, {ServeApi::chat, ServeApi::completions}); },
   [](auto& c) { return json(to_string(c.serve.api)); }},
  {"serve", "model", "string", "model field of the requests (empty: the first of GET /v1/models)", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.serve.model = in.text(v, k); },
   [](auto& c) { return json(c.serve.model); }},
  {"serve", "api_key", "string", "sent as a bearer token; never written to a report", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.serve.api_key = in.text(v, k); },
   nullptr},
  {"serve", "concurrency", "list of integers 1..4096", "concurrency levels", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.serve.concurrency = in.integer_list(v, k, 1, 4096); },
   [](auto& c) { return json(c.serve.concurrency); }},
  {"serve", "requests", "integer 0..10000000", "counted requests per level (0: max(8, 4 x concurrency))", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.serve.requests = in.integer(v, k, 0, 10000000); },
   [](auto& c) { return json(c.serve.requests); }},
  {"serve", "warmup_requests", "integer 0..100000", "requests before each level, not counted", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.serve.warmup_requests = in.integer(v, k, 0, 100000); },
   [](auto& c) { return json(c.serve.warmup_requests); }},
  {"serve", "max_tokens", "integer 1..1048576", "output tokens per request", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.serve.max_tokens = in.integer(v, k, 1, 1 << 20); },
   [](auto& c) { return json(c.serve.max_tokens); }},
  {"serve", "prompt_tokens", "integer 1..4194304", "approximate prompt length (no tokenizer)", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.serve.prompt_tokens = in.integer(v, k, 1, 1 << 22); },
   [](auto& c) { return json(c.serve.prompt_tokens); }},
  {"serve", "ignore_eos", "true | false", "vLLM/SGLang extension: every request generates max_tokens", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.serve.ignore_eos = in.boolean(v, k); },
   [](auto& c) { return json(c.serve.ignore_eos); }},
  {"serve", "request_rate", "number 0..1000000", "Poisson arrivals per second (0: closed loop)", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.serve.request_rate = in.number(v, k, 0.0, 1e6); },
   [](auto& c) { return json(c.serve.request_rate); }},
  {"serve", "connect_timeout_s", "number 0.01..3600", "seconds to connect before a request fails", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.serve.connect_timeout_s = in.number(v, k, 0.01, 3600); },
   [](auto& c) { return json(c.serve.connect_timeout_s); }},
  {"serve", "idle_timeout_s", "number 0.01..86400", "seconds without a byte before a request fails", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.serve.idle_timeout_s = in.number(v, k, 0.01, 86400); },
   [](auto& c) { return json(c.serve.idle_timeout_s); }},
  {"serve", "request_timeout_s", "number 0.01..86400", "seconds a whole request may take", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.serve.request_timeout_s = in.number(v, k, 0.01, 86400); },
   [](auto& c) { return json(c.serve.request_timeout_s); }},
  {"serve", "percentiles", "list of numbers 0.001..100", "latency percentiles reported as vllm bench serve names them", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.serve.percentiles = in.number_list(v, k, 0.001, 100); },
   [](auto& c) { return json(c.serve.percentiles); }},

  // output
  {"output", "dir", "path", "output directory", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.output.dir = in.text(v, k); },
   [](auto& c) { return json(c.output.dir); }},
  {"output", "trace", "true | false", "write trace.json", false,
   [](auto& in, auto& v, auto& k, auto& c) { c.output.trace = in.boolean(v, k); },
   [](auto& c) { return json(c.output.trace); }},
};
// clang-format on

}  // namespace

std::span<const ConfigKey> config_keys() {
  return kKeys;
}

const std::vector<std::string>& config_sections() {
  static const std::vector<std::string> kSections = {"model",     "expert_parallel", "routing", "sweep",
                                                     "transport", "serve",           "output"};
  return kSections;
}

nlohmann::json config_to_json(const RunConfig& config) {
  json out = json::object();
  for (const std::string& section : config_sections()) out[section] = json::object();
  for (const ConfigKey& key : config_keys())
    if (key.write != nullptr) out[key.section][key.name] = key.write(config);
  return out;
}

std::string config_keys_markdown() {
  std::string md = "| key | value | meaning |\n|---|---|---|\n";
  for (const ConfigKey& key : config_keys())
    md += fmt::format("| `{}.{}`{} | {} | {} |\n", key.section, key.name, key.required ? " (required)" : "",
                      key.type, key.meaning);
  return md;
}

std::string set_phases(SweepSpec& sweep, const std::vector<std::string>& names) {
  sweep.run_allreduce = sweep.run_alltoall = sweep.run_serve = false;
  for (const std::string& name : names) {
    if (name == "allreduce")
      sweep.run_allreduce = true;
    else if (name == "alltoall")
      sweep.run_alltoall = true;
    else if (name == "serve")
      sweep.run_serve = true;
    else
      return name;
  }
  return {};
}

std::vector<std::string> phase_names(const SweepSpec& sweep) {
  std::vector<std::string> names;
  if (sweep.run_allreduce) names.push_back("allreduce");
  if (sweep.run_alltoall) names.push_back("alltoall");
  if (sweep.run_serve) names.push_back("serve");
  return names;
}

std::string set_modes(SweepSpec& sweep, const std::vector<std::string>& names) {
  sweep.modes.clear();
  for (const std::string& name : names) {
    const auto mode = enum_from_name<TimingMode>(name);
    if (!mode) return name;
    sweep.modes.push_back(*mode);
  }
  return {};
}

}  // namespace k25
