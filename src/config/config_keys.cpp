// The table of config keys (see config_keys.hpp) and what is derived from it.
#include "config/config_keys.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>

#include "common/column_table.hpp"
#include "common/redaction.hpp"

namespace k25 {

bool ValueSpec::is_list() const {
  return kind == Kind::integer_list || kind == Kind::number_list || kind == Kind::choice_list;
}

std::string ValueSpec::type_text() const {
  switch (kind) {
    case Kind::integer:
      return "integer " + range_text(min, max);
    case Kind::unsigned_integer:
      return "integer >= 0";
    case Kind::number:
      return "number " + range_text(min, max);
    case Kind::boolean:
      return "true | false";
    case Kind::integer_list:
      return fmt::format("{}list of integers {}", ascending ? "ascending " : "", range_text(min, max));
    case Kind::number_list:
      return "list of numbers " + range_text(min, max);
    case Kind::choice:
      return join_names(names, " | ");
    case Kind::choice_list:
      return "list of " + join_names(names);
    case Kind::text:
    case Kind::structured:
      return form;
  }
  return form;
}

std::string ValueSpec::flag_value_name() const {
  switch (kind) {
    case Kind::integer:
      return "INT " + range_text(min, max);
    case Kind::unsigned_integer:
      return "INT >= 0";
    case Kind::number:
      return "NUMBER " + range_text(min, max);
    case Kind::boolean:
      return "true|false";
    case Kind::integer_list:
      return "INT,... " + range_text(min, max);
    case Kind::number_list:
      return "NUMBER,... " + range_text(min, max);
    case Kind::choice:
      return join_names(names, "|");
    case Kind::choice_list:
      return "LIST of " + join_names(names, "|");
    case Kind::text:
    case Kind::structured: {
      std::string upper = form == "string" ? "TEXT" : form;
      for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      return upper;
    }
  }
  return "VALUE";
}

namespace {

using nlohmann::json;
using Kind = ValueSpec::Kind;

// Value specs.

ValueSpec integer(long long min, long long max) {
  return {Kind::integer, static_cast<double>(min), static_cast<double>(max)};
}
ValueSpec unsigned_integer() {
  return {Kind::unsigned_integer};
}
ValueSpec number(double min, double max) {
  return {Kind::number, min, max};
}
ValueSpec boolean() {
  return {Kind::boolean};
}
ValueSpec text(std::string form) {
  return {Kind::text, 0, 0, false, {}, std::move(form)};
}
ValueSpec integers(long long min, long long max, bool ascending = false) {
  return {Kind::integer_list, static_cast<double>(min), static_cast<double>(max), ascending};
}
ValueSpec numbers(double min, double max) {
  return {Kind::number_list, min, max};
}
// One of `allowed` (every value of E when empty), by the names of E's table.
template <NamedEnum E>
ValueSpec one_of(std::initializer_list<E> allowed = {}) {
  return {Kind::choice, 0, 0, false, enum_names<E>(allowed)};
}
template <NamedEnum E>
ValueSpec list_of(std::initializer_list<E> allowed = {}) {
  return {Kind::choice_list, 0, 0, false, enum_names<E>(allowed)};
}

// The one reader and writer per value type.

template <typename T>
struct IsEnumList : std::false_type {};
template <NamedEnum E>
struct IsEnumList<std::vector<E>> : std::true_type {};

template <typename T>
T read_as(const ConfigReader& in, const YAML::Node& v, const std::string& k, const ValueSpec& s) {
  const auto low = static_cast<long long>(s.min), high = static_cast<long long>(s.max);
  if constexpr (std::is_same_v<T, int>) {
    return in.integer(v, k, low, high);
  } else if constexpr (std::is_same_v<T, std::uint64_t>) {
    return in.unsigned_integer(v, k);
  } else if constexpr (std::is_same_v<T, double>) {
    return in.number(v, k, s.min, s.max);
  } else if constexpr (std::is_same_v<T, bool>) {
    return in.boolean(v, k);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return in.text(v, k);
  } else if constexpr (std::is_same_v<T, std::vector<int>>) {
    std::vector<int> values = in.integer_list(v, k, low, high);
    for (std::size_t i = 1; s.ascending && i < values.size(); ++i)
      if (values[i] <= values[i - 1])
        in.fail(v[i], k,
                fmt::format("values must be strictly ascending: {} follows {}", values[i], values[i - 1]));
    return values;
  } else if constexpr (std::is_same_v<T, std::vector<double>>) {
    return in.number_list(v, k, s.min, s.max);
  } else if constexpr (NamedEnum<T>) {
    return in.choice<T>(v, k, s.names);
  } else {
    static_assert(IsEnumList<T>::value, "no reader for this field type");
    if (!v.IsSequence() || v.size() == 0) in.fail(v, k, "expected a non-empty list");
    T values;
    for (std::size_t i = 0; i < v.size(); ++i)
      values.push_back(in.choice<typename T::value_type>(v[i], k, s.names));
    return values;
  }
}

template <typename T>
json json_of(const T& value) {
  if constexpr (NamedEnum<T>) {
    return to_string(value);
  } else if constexpr (IsEnumList<T>::value) {
    json names = json::array();
    for (const auto& item : value) names.push_back(to_string(item));
    return names;
  } else {
    return value;
  }
}

// What a row says about a key besides its value and field.
struct KeyDoc {
  const char* section;
  const char* name;
  std::string meaning;
  const char* flag = nullptr;
  FlagKind flag_kind = FlagKind::value;
  FlagListing listing = FlagListing::listed;
  bool required = false;
};

ConfigKey make_key(KeyDoc doc, ValueSpec spec) {
  ConfigKey key;
  key.section = doc.section;
  key.name = doc.name;
  key.value = std::move(spec);
  key.meaning = std::move(doc.meaning);
  key.required = doc.required;
  key.flag = doc.flag;
  key.flag_kind = doc.flag_kind;
  key.listing = doc.listing;
  return key;
}

// A key stored in one field of the config: `access` is a generic lambda giving the field of a (const)
// RunConfig, and the field's type picks its reader and writer.
template <typename Access>
ConfigKey field(KeyDoc doc, ValueSpec spec, Access access, bool written = true) {
  using T = std::remove_cvref_t<decltype(access(std::declval<RunConfig&>()))>;
  ConfigKey key = make_key(std::move(doc), spec);
  key.read = [access, spec](const ConfigReader& in, const YAML::Node& v, const std::string& k, RunConfig& c) {
    access(c) = read_as<T>(in, v, k, spec);
  };
  if (written) key.write = [access](const RunConfig& c) { return json_of(access(c)); };
  return key;
}

// A key with a reader and writer of its own.
ConfigKey custom(KeyDoc doc, ValueSpec spec, decltype(ConfigKey::read) read, decltype(ConfigKey::write) write,
                 const char* bare_value = nullptr) {
  ConfigKey key = make_key(std::move(doc), std::move(spec));
  key.read = std::move(read);
  key.write = std::move(write);
  key.bare_value = bare_value;
  return key;
}

// serve.profile: "all", "none", a concurrency, a comma-separated list of them (the flag's text), or a YAML
// list.
ServeProfileLevels read_profile_levels(const ConfigReader& in, const YAML::Node& value,
                                       const std::string& key) {
  ServeProfileLevels profile;
  if (value.IsNull()) return profile;
  if (value.IsSequence()) {
    profile.levels = in.integer_list(value, key, 1, 4096);
    return profile;
  }
  const std::string text = in.text(value, key);
  if (text == "all" || text == "true") {
    profile.all = true;
    return profile;
  }
  if (text == "none" || text == "false" || text.empty()) return profile;
  std::size_t begin = 0;
  for (;;) {
    const std::size_t comma = text.find(',', begin);
    const std::string item = text.substr(begin, comma == std::string::npos ? comma : comma - begin);
    std::size_t used = 0;
    int level = 0;
    try {
      level = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || level < 1 || level > 4096)
      in.fail(value, key,
              fmt::format("'{}' is not a concurrency 1..4096 (give all, none or a list of them)", item));
    profile.levels.push_back(level);
    if (comma == std::string::npos) return profile;
    begin = comma + 1;
  }
}

// serve.api_key: the key itself, or env:NAME (the key is that environment variable's value, read here on
// every rank; the serve phase, on rank 0 alone, refuses to start when it is not set there).
void read_api_key(const ConfigReader& in, const YAML::Node& value, const std::string& key, ServeSpec& serve) {
  const std::string given = in.text(value, key);
  serve.api_key = given;
  serve.api_key_env.clear();
  constexpr std::string_view kReference = "env:";
  if (!given.starts_with(kReference)) return;
  const std::string name = given.substr(kReference.size());
  const bool valid = !name.empty() && std::isdigit(static_cast<unsigned char>(name.front())) == 0 &&
                     std::all_of(name.begin(), name.end(), [](char ch) {
                       return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_';
                     });
  if (!valid)
    in.fail(
        value, key,
        fmt::format(
            "'{}': env: is followed by the name of an environment variable (letters, digits and _, not starting with a digit), e.g. env:OPENAI_API_KEY",
            given));
  serve.api_key_env = name;
  const char* found = std::getenv(name.c_str());
  serve.api_key = found != nullptr ? found : "";
}

// sweep.allreduce_backends: a non-empty list of backends, each named once; an empty YAML list (as report.json
// writes the default) is the transport's own collective.
std::vector<AllreduceBackend> read_backends(const ConfigReader& in, const YAML::Node& value,
                                            const std::string& key) {
  if (value.IsSequence() && value.size() == 0) return {};
  const auto backends = read_as<std::vector<AllreduceBackend>>(in, value, key, list_of<AllreduceBackend>());
  for (std::size_t i = 1; i < backends.size(); ++i)
    if (std::find(backends.begin(), backends.begin() + static_cast<std::ptrdiff_t>(i), backends[i]) !=
        backends.begin() + static_cast<std::ptrdiff_t>(i))
      in.fail(value[i], key, fmt::format("{} is named twice", to_string(backends[i])));
  return backends;
}

json profile_levels_json(const ServeProfileLevels& profile) {
  if (profile.all) return "all";
  if (profile.levels.empty()) return "none";
  return profile.levels;
}

// model.sequence: its reader and writer.

constexpr std::initializer_list<CollectiveKind> kSequenceKinds = {
    CollectiveKind::allreduce, CollectiveKind::allgather, CollectiveKind::reducescatter};
const std::vector<std::string> kSequenceFields = {"bytes", "bytes_per_token", "count", "dtype", "kind",
                                                  "name",  "per_layer"};

// Fails on a key that appears twice in one mapping, naming the first one's line.
void expect_unique_key(const ConfigReader& in, const YAML::Node& map, const YAML::Node& key_node,
                       const std::string& path) {
  const auto name = key_node.as<std::string>();
  for (const auto& entry : map) {
    if (entry.first.as<std::string>() != name) continue;
    if (entry.first.Mark().pos == key_node.Mark().pos) return;  // the first occurrence is this one
    in.fail(key_node, path, fmt::format("given twice (first on line {})", line_of(entry.first)));
  }
}

// model.sequence: a list of mappings, each one kind of op (see SequenceOp); errors name the entry's line.
std::vector<SequenceOp> read_sequence(const ConfigReader& in, const YAML::Node& list,
                                      const std::string& key) {
  if (list.IsNull()) return {};  // as report.json writes "no sequence"
  if (!list.IsSequence() || list.size() == 0) in.fail(list, key, "expected a non-empty list of ops");
  const ValueSpec kinds = one_of<CollectiveKind>(kSequenceKinds);
  const ValueSpec dtypes = one_of<Dtype>();
  std::vector<SequenceOp> ops;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node entry = list[i];
    const std::string at = fmt::format("{}[{}]", key, i);
    if (!entry.IsMap())
      in.fail(entry, at, "expected a mapping {kind, dtype, bytes_per_token | bytes, count | per_layer}");
    SequenceOp op;
    op.line = line_of(entry);
    for (const auto& item : entry) {
      if (!item.first.IsScalar()) in.fail(item.first, at, "a key must be a plain name");
      const auto name = item.first.as<std::string>();
      const std::string where = at + "." + name;
      expect_unique_key(in, entry, item.first, where);
      if (name == "kind")
        op.kind = read_as<CollectiveKind>(in, item.second, where, kinds);
      else if (name == "dtype")
        op.dtype = read_as<Dtype>(in, item.second, where, dtypes);
      else if (name == "bytes_per_token")
        op.bytes_per_token = static_cast<std::uint64_t>(in.integer(item.second, where, 1, 1LL << 40));
      else if (name == "bytes")
        op.bytes = static_cast<std::uint64_t>(in.integer(item.second, where, 1, 1LL << 40));
      else if (name == "count")
        op.count = in.integer(item.second, where, 1, 100000);
      else if (name == "per_layer")
        op.per_layer = in.integer(item.second, where, 1, 64);
      else if (name == "name")
        op.name = in.text(item.second, where);
      else
        in.fail(item.first, where,
                fmt::format("unknown key (known keys here: {})", join_names(kSequenceFields)));
    }
    if (!entry["kind"]) in.fail(entry, at, fmt::format("no kind ({})", join_names(kinds.names)));
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

// The table, section by section.

std::vector<ConfigKey> make_table() {
  // clang-format off
  return {
    // model: the shape of one decode step's communication
    field({"model", "name", "model name, as reports and compare show it", nullptr, FlagKind::value, FlagListing::listed, true},
          text("string"), [](auto& c) -> auto& { return c.model.name; }),
    field({"model", "hidden_size", "hidden size: an AllReduce moves tokens x hidden_size elements", nullptr, FlagKind::value, FlagListing::listed, true},
          integer(1, 1 << 20), [](auto& c) -> auto& { return c.model.hidden_size; }),
    field({"model", "num_layers", "decoder layers", nullptr, FlagKind::value, FlagListing::listed, true},
          integer(1, 4096), [](auto& c) -> auto& { return c.model.num_layers; }),
    field({"model", "dense_layers", "leading layers with a dense MLP (no MoE All-to-All)"},
          integer(0, 4096), [](auto& c) -> auto& { return c.model.dense_layers; }),
    field({"model", "routed_experts", "routed experts, spread evenly over the ranks", nullptr, FlagKind::value, FlagListing::listed, true},
          integer(1, 1 << 16), [](auto& c) -> auto& { return c.model.routed_experts; }),
    field({"model", "experts_per_token", "top-k experts per token", nullptr, FlagKind::value, FlagListing::listed, true},
          integer(1, 1 << 16), [](auto& c) -> auto& { return c.model.experts_per_token; }),
    field({"model", "shared_experts", "shared experts (reduced with the routed ones: no extra op)"},
          integer(0, 64), [](auto& c) -> auto& { return c.model.shared_experts; }),
    field({"model", "activation_dtype", "activation element type; the AllReduce's unless sweep.allreduce_dtype"},
          one_of({Dtype::bf16, Dtype::fp32}), [](auto& c) -> auto& { return c.model.activation_dtype; }),
    field({"model", "allreduces_per_layer", "tensor-parallel AllReduces per layer (after attention, after the MLP/MoE)"},
          integer(0, 64), [](auto& c) -> auto& { return c.model.allreduces_per_layer; }),
    field({"model", "embedding_allreduce", "one more AllReduce per step for the vocab-parallel embedding"},
          boolean(), [](auto& c) -> auto& { return c.model.embedding_allreduce; }),
    field({"model", "dispatch_dtype", "MoE dispatch payload type (fp8 with fp32 scales and a header)"},
          one_of({Dtype::fp8, Dtype::bf16}), [](auto& c) -> auto& { return c.model.dispatch_dtype; }),
    field({"model", "combine_dtype", "MoE combine payload type"},
          one_of({Dtype::bf16, Dtype::fp32}), [](auto& c) -> auto& { return c.model.combine_dtype; }),
    field({"model", "fp8_scale_block", "values per fp32 scale of the fp8 dispatch"},
          integer(1, 1 << 16), [](auto& c) -> auto& { return c.model.fp8_scale_block; }),
    field({"model", "dispatch_header_bytes", "per-copy header bytes of the fp8 dispatch (DeepEP: 16)"},
          integer(0, 4096), [](auto& c) -> auto& { return c.model.dispatch_header_bytes; }),
    custom({"model", "sequence",
            fmt::format("the tensor-parallel ops of a step as the engine issues them (kinds {}; bytes as nccl-tests sizes them); replaces allreduces_per_layer and embedding_allreduce",
                        join_names(enum_names<CollectiveKind>(kSequenceKinds)))},
           {Kind::structured, 0, 0, false, {}, "list of {kind, dtype, bytes_per_token or bytes, count or per_layer, name}"},
           [](auto& in, auto& v, auto& k, auto& c) { c.model.sequence = read_sequence(in, v, k); },
           [](auto& c) { return sequence_json(c.model.sequence); }),

    // expert_parallel
    field({"expert_parallel", "backend", "how the MoE dispatch and combine move tokens: All-to-Allv of copies, or vLLM's AllGather + ReduceScatter"},
          one_of<EpBackend>(), [](auto& c) -> auto& { return c.model.ep_backend; }),

    // routing: which experts tokens pick (the All-to-All byte matrices)
    field({"routing", "model", "routing model", "--routing"},
          one_of<RoutingModel>(), [](auto& c) -> auto& { return c.routing.model; }),
    field({"routing", "zipf_s", "Zipf exponent over a seeded permutation of the experts", "--zipf-s"},
          number(0, 10), [](auto& c) -> auto& { return c.routing.zipf_s; }),
    field({"routing", "copies", "one copy per (token, rank) (DeepEP normal) or per (token, expert) (low-latency)", "--copies"},
          one_of<CopyGranularity>(), [](auto& c) -> auto& { return c.routing.copies; }),
    field({"routing", "seed", "seed every rank derives the same routing from", "--seed"},
          unsigned_integer(), [](auto& c) -> auto& { return c.routing.seed; }),

    // sweep: what is measured and for how long
    field({"sweep", "tokens", "token counts: per decode step for AllReduce, per rank for dispatch/combine", "--tokens"},
          integers(1, 65536), [](auto& c) -> auto& { return c.sweep.tokens; }),
    custom({"sweep", "phases", "phases to run", "--phases"}, list_of<SweepPhase>(),
           [](auto& in, auto& v, auto& k, auto& c) { set_phases(c.sweep, read_as<std::vector<SweepPhase>>(in, v, k, list_of<SweepPhase>())); },
           [](auto& c) { return json(phase_names(c.sweep)); }),
    field({"sweep", "modes", "timing modes (graph: CUDA graphs, nccl transport; decode: eager with a compute gap before each op, sweep.decode_*)", "--modes"},
          list_of<TimingMode>(), [](auto& c) -> auto& { return c.sweep.modes; }),
    field({"sweep", "graph_sizes", "CUDA-graph capture sizes: graph mode pads a token count to the next one (default vLLM's: 1, 2, 4, 8..248 by 8, 256..512 by 16); a larger count is not padded"},
          integers(1, 65536, true), [](auto& c) -> auto& { return c.sweep.graph_sizes; }),
    field({"sweep", "allreduce_dtype", "AllReduce element type (default: model.activation_dtype)", "--dtype"},
          one_of({Dtype::bf16, Dtype::fp32}), [](auto& c) -> auto& { return c.sweep.allreduce_dtype; }),
    field({"sweep", "in_place", "AllReduce in place (default out of place)", "--in-place", FlagKind::sets_true},
          boolean(), [](auto& c) -> auto& { return c.sweep.in_place; }),
    field({"sweep", "warmup", "untimed bursts before each point (the first connect NCCL's peers)", "--warmup"},
          integer(1, 1000000), [](auto& c) -> auto& { return c.sweep.warmup; }),
    field({"sweep", "iterations", "timed trials (whole bursts) per point, at most", "--iters"},
          integer(1, 10000000), [](auto& c) -> auto& { return c.sweep.iterations; }),
    field({"sweep", "min_iterations", "timed trials per point at least (never more than iterations), whatever the time budget"},
          integer(1, 10000000), [](auto& c) -> auto& { return c.sweep.min_iterations; }),
    field({"sweep", "op_iterations", "trials of the per-op pass, at most (0: none)", "--op-iters"},
          integer(0, 10000000), [](auto& c) -> auto& { return c.sweep.op_iterations; }),
    field({"sweep", "time_budget_s", "seconds per point after which trials stop", "--time-budget"},
          number(1e-3, 1e6), [](auto& c) -> auto& { return c.sweep.time_budget_s; }),
    field({"sweep", "check", "correctness pass after timing", "--no-check", FlagKind::sets_false},
          boolean(), [](auto& c) -> auto& { return c.sweep.check; }),
    field({"sweep", "include_permute", "nccl: count the MoE pack/unpack kernels in the All-to-All step", "--include-permute", FlagKind::sets_true},
          boolean(), [](auto& c) -> auto& { return c.sweep.include_permute; }),
    field({"sweep", "decode_gap_us", "decode mode: compute gap before every op, in us (GPU busy kernel on nccl, host busy wait on mpi)", "--decode-gap"},
          number(0, 1e6), [](auto& c) -> auto& { return c.sweep.decode.gap_us; }),
    field({"sweep", "decode_layer_gap_us", "decode mode: compute per decoder layer, in us, split evenly over that layer's ops of a burst (--gaps-from derives it from a serve report)", "--decode-layer-gap"},
          number(0, 1e6), [](auto& c) -> auto& { return c.sweep.decode.layer_gap_us; }),
    field({"sweep", "decode_skew_us", "decode mode: each rank adds a seeded uniform skew in [0, this) to each gap (unequal arrival)", "--decode-skew"},
          number(0, 1e6), [](auto& c) -> auto& { return c.sweep.decode.skew_us; }),
    field({"sweep", "decode_seed", "decode mode: seed of the skew (same seed, same skews on every run)"},
          unsigned_integer(), [](auto& c) -> auto& { return c.sweep.decode.seed; }),
    field({"sweep", "device_only", "nccl: hold the stream until each burst is enqueued (no host launch cost)", "--device-only", FlagKind::sets_true},
          boolean(), [](auto& c) -> auto& { return c.sweep.device_only; }),
    custom({"sweep", "allreduce_backends", "the AllReduce burst replayed once per backend, interleaved, each checked exactly (docs/allreduce-backends.md): nccl or mpi (the library collective), oneshot (push), twoshot (reduce-scatter + all-gather), oneshot-pull; default: the transport's own (nccl on GPUs, mpi on the host transport)", "--allreduce-backends"},
           list_of<AllreduceBackend>(),
           [](auto& in, auto& v, auto& k, auto& c) { c.sweep.allreduce_backends = read_backends(in, v, k); },
           [](auto& c) { return json_of(c.sweep.allreduce_backends); }),
    field({"sweep", "allreduce_epilogue", "after every backend's sum: none, or the residual add and RMSNorm engines fuse into the all-reduce (nccl and mpi: a separate step after it; the peer backends: fused)", "--allreduce-epilogue"},
          one_of<AllreduceEpilogue>(), [](auto& c) -> auto& { return c.sweep.allreduce_epilogue; }),

    // transport
    field({"transport", "backend", "transport (auto: nccl where every rank has a GPU of its own)", "--backend"},
          one_of<Backend>(), [](auto& c) -> auto& { return c.transport.backend; }),
    field({"transport", "timeout_s", "watchdog: a collective that takes longer ends the run (exit 3)", "--timeout"},
          number(0.1, 86400), [](auto& c) -> auto& { return c.transport.timeout_s; }),
    field({"transport", "emulate_ranks", "test only: several nccl ranks per GPU, each its own NCCL host (NCCL_HOSTID); the figures then describe sockets and time slicing, not a link", "--emulate-ranks", FlagKind::sets_true, FlagListing::testing},
          boolean(), [](auto& c) -> auto& { return c.transport.emulate_ranks; }),
    field({"transport", "nccl_register", "nccl: register the send and receive buffers with NCCL (ncclMemAlloc + ncclCommRegister, or ncclCommWindowRegister symmetric), as nccl-tests -R", "--nccl-register"},
          one_of<NcclRegister>(), [](auto& c) -> auto& { return c.transport.nccl_register; }),
    field({"transport", "peer_max_bytes", "the peer all-reduce backends' largest op, bytes (their buffers' size; vLLM's custom all-reduce max_size); a larger op's row says it was not run", "--peer-max-bytes"},
          integer(4096, 1 << 30), [](auto& c) -> auto& { return c.transport.peer_max_bytes; }),
    field({"transport", "inject_hang", "test only: that op waits forever (of that AllReduce backend only, where named)", "--inject-hang", FlagKind::value, FlagListing::hidden},
          text("PHASE:TOKENS:OP[:RANK[:BACKEND]]"), [](auto& c) -> auto& { return c.transport.inject_hang; }),
    field({"transport", "inject_wrong", "test only: that AllReduce backend leaves each rank's own input out of its sum", "--inject-wrong", FlagKind::value, FlagListing::hidden},
          text("BACKEND"), [](auto& c) -> auto& { return c.transport.inject_wrong; }),
    field({"transport", "inject_delay", "test only: that rank arrives US microseconds late at every trial", "--inject-delay", FlagKind::value, FlagListing::hidden},
          text("RANK:US"), [](auto& c) -> auto& { return c.transport.inject_delay; }),

    // serve: the endpoint whose decode latency is the attribution's denominator
    field({"serve", "endpoint", "base URL (\"/v1\" accepted); empty: the serve phase is skipped", "--endpoint"},
          text("URL"), [](auto& c) -> auto& { return c.serve.endpoint; }),
    field({"serve", "api", "/v1/completions or /v1/chat/completions", "--api"},
          one_of({ServeApi::completions, ServeApi::chat}), [](auto& c) -> auto& { return c.serve.api; }),
    field({"serve", "model", "model field of the requests (empty: the first of GET /v1/models)", "--model"},
          text("string"), [](auto& c) -> auto& { return c.serve.model; }),
    custom({"serve", "api_key", "sent as a bearer token; env:NAME reads it from that environment variable where rank 0 runs; never written or printed (docs/serve.md#secrets)", "--api-key"},
           text("string"), [](auto& in, auto& v, auto& k, auto& c) { read_api_key(in, v, k, c.serve); }, nullptr),
    field({"serve", "concurrency", "concurrency levels", "--concurrency"},
          integers(1, 4096), [](auto& c) -> auto& { return c.serve.concurrency; }),
    field({"serve", "requests", "counted requests per level (0: max(8, 4 x concurrency))", "--requests"},
          integer(0, 10000000), [](auto& c) -> auto& { return c.serve.requests; }),
    field({"serve", "warmup_requests", "requests before each level, not counted"},
          integer(0, 100000), [](auto& c) -> auto& { return c.serve.warmup_requests; }),
    field({"serve", "max_tokens", "output tokens per request", "--max-tokens"},
          integer(1, 1 << 20), [](auto& c) -> auto& { return c.serve.max_tokens; }),
    field({"serve", "prompt_tokens", "approximate prompt length (no tokenizer)", "--prompt-tokens"},
          integer(1, 1 << 22), [](auto& c) -> auto& { return c.serve.prompt_tokens; }),
    field({"serve", "ignore_eos", "vLLM/SGLang extension: every request generates max_tokens"},
          boolean(), [](auto& c) -> auto& { return c.serve.ignore_eos; }),
    field({"serve", "request_rate", "Poisson arrivals per second (0: closed loop)", "--request-rate"},
          number(0, 1e6), [](auto& c) -> auto& { return c.serve.request_rate; }),
    field({"serve", "connect_timeout_s", "seconds to connect before a request fails"},
          number(0.01, 3600), [](auto& c) -> auto& { return c.serve.connect_timeout_s; }),
    field({"serve", "idle_timeout_s", "seconds without a byte before a request fails"},
          number(0.01, 86400), [](auto& c) -> auto& { return c.serve.idle_timeout_s; }),
    field({"serve", "request_timeout_s", "seconds a whole request may take"},
          number(0.01, 86400), [](auto& c) -> auto& { return c.serve.request_timeout_s; }),
    field({"serve", "percentiles", "latency percentiles reported as vllm bench serve names them (e.g. 50,90,99)", "--percentiles"},
          numbers(0.001, 100), [](auto& c) -> auto& { return c.serve.percentiles; }),
    custom({"serve", "profile", "levels around a window of which the engine's own profiler runs (docs/live-profile.md): all, none, or concurrencies; the flag alone means all", "--profile"},
           {Kind::structured, 0, 0, false, {}, "all | none | list of concurrencies"},
           [](auto& in, auto& v, auto& k, auto& c) { c.serve.profile = read_profile_levels(in, v, k); },
           [](auto& c) { return profile_levels_json(c.serve.profile); }, "all"),
    field({"serve", "engine", "the engine whose profiler --profile drives (auto: told from the server)", "--engine"},
          one_of<ServeEngine>(), [](auto& c) -> auto& { return c.serve.engine; }),
    field({"serve", "profile_dir", "folder the server writes its profiler traces to, as this host sees it", "--profile-dir"},
          text("path"), [](auto& c) -> auto& { return c.serve.profile_dir; }),
    field({"serve", "profile_steps", "engine steps a profile window records (SGLang's num_steps)"},
          integer(1, 100000), [](auto& c) -> auto& { return c.serve.profile_steps; }),
    field({"serve", "profile_wait_s", "seconds to wait after a profiler stop for complete trace files", "--profile-wait"},
          number(0, 86400), [](auto& c) -> auto& { return c.serve.profile_wait_s; }),
    field({"serve", "profile_settle_s", "seconds after the last trace file stopped changing that end the wait where fewer ranks' files came than their world size", "--profile-settle"},
          number(0, 3600), [](auto& c) -> auto& { return c.serve.profile_settle_s; }),
    field({"serve", "profile_kernel_classes", "a kernel-class table (YAML) the live profile tries before the shipped data/kernel-classes.yaml, as k25comm capture --kernel-classes", "--kernel-classes"},
          text("path"), [](auto& c) -> auto& { return c.serve.profile_kernel_classes; }),

    // output
    field({"output", "dir", "output directory", "--out"},
          text("path"), [](auto& c) -> auto& { return c.output.dir; }),
    field({"output", "trace", "write trace.json", "--no-trace", FlagKind::sets_false},
          boolean(), [](auto& c) -> auto& { return c.output.trace; }),
    field({"output", "plots", "run tools/plot-report: the report's PNG plots", "--no-plots", FlagKind::sets_false},
          boolean(), [](auto& c) -> auto& { return c.output.plots; }),
  };
  // clang-format on
}

const std::vector<ConfigKey>& table() {
  static const std::vector<ConfigKey> kKeys = make_table();
  return kKeys;
}

// "1,,4" keeps its empty item, which is then refused.
std::vector<std::string> split_items(const std::string& text) {
  std::vector<std::string> items;
  std::size_t begin = 0;
  for (;;) {
    const std::size_t comma = text.find(',', begin);
    items.push_back(text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin));
    if (comma == std::string::npos) return items;
    begin = comma + 1;
  }
}

}  // namespace

std::span<const ConfigKey> config_keys() {
  return table();
}

const std::vector<std::string>& config_sections() {
  static const std::vector<std::string> kSections = {"model",     "expert_parallel", "routing", "sweep",
                                                     "transport", "serve",           "output"};
  return kSections;
}

const ConfigKey* config_key_of_flag(const std::string& flag) {
  for (const ConfigKey& key : config_keys())
    if (key.flag != nullptr && flag == key.flag) return &key;
  return nullptr;
}

YAML::Node flag_value_node(const ConfigKey& key, const std::string& text) {
  if (key.flag_kind != FlagKind::value)
    return YAML::Node(key.flag_kind == FlagKind::sets_true ? "true" : "false");
  if (!key.value.is_list()) return YAML::Node(text);
  YAML::Node list(YAML::NodeType::Sequence);
  for (const std::string& item : split_items(text)) {
    if (item.empty())
      throw UsageError(
          fmt::format("{}: '{}' has an empty item (separate items with single commas)", key.flag, text));
    list.push_back(YAML::Node(item));
  }
  return list;
}

void apply_flag(const ConfigKey& key, const std::string& text, RunConfig& config) {
  key.read(ConfigReader::command_line(), flag_value_node(key, text), key.flag, config);
}

nlohmann::json config_to_json(const RunConfig& config) {
  json out = json::object();
  for (const std::string& section : config_sections()) out[section] = json::object();
  for (const ConfigKey& key : config_keys())
    if (key.write) out[key.section][key.name] = key.write(config);
  return redact_json(std::move(out));  // an endpoint's user-info, a secret in any key's text
}

namespace {

// The flag column of the README's key list: "`--iters`", "`--no-check` (false)".
std::string flag_cell(const ConfigKey& key) {
  if (key.flag == nullptr) return "";
  if (key.flag_kind == FlagKind::value) return fmt::format("`{}`", key.flag);
  return fmt::format("`{}` ({})", key.flag, key.flag_kind == FlagKind::sets_true ? "true" : "false");
}

}  // namespace

std::string config_keys_markdown() {
  const Columns<ConfigKey> columns = {
      {"key", "",
       [](const ConfigKey& k) {
         return TableCell(fmt::format("`{}`{}", k.path(), k.required ? " (required)" : ""));
       }},
      {"flag", "", [](const ConfigKey& k) { return TableCell(flag_cell(k)); }},
      {"value", "", [](const ConfigKey& k) { return TableCell(k.value.type_text()); }},
      {"meaning", "", [](const ConfigKey& k) { return TableCell(k.meaning); }},
  };
  std::vector<const ConfigKey*> rows;
  for (const ConfigKey& key : config_keys()) rows.push_back(&key);
  return markdown_table(columns, rows, TableLayout::text);
}

void set_phases(SweepSpec& sweep, const std::vector<SweepPhase>& phases) {
  const auto asked = [&](SweepPhase phase) { return std::count(phases.begin(), phases.end(), phase) > 0; };
  sweep.run_allreduce = asked(SweepPhase::allreduce);
  sweep.run_alltoall = asked(SweepPhase::alltoall);
  sweep.run_serve = asked(SweepPhase::serve);
}

std::vector<std::string> phase_names(const SweepSpec& sweep) {
  std::vector<std::string> names;
  if (sweep.run_allreduce) names.push_back(to_string(SweepPhase::allreduce));
  if (sweep.run_alltoall) names.push_back(to_string(SweepPhase::alltoall));
  if (sweep.run_serve) names.push_back(to_string(SweepPhase::serve));
  return names;
}

}  // namespace k25
