// JSON form of a measured point (report.json `results` and the journal's result lines).
#include "analysis/phase_result.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "common/json_integer.hpp"
#include "common/optional_json.hpp"

namespace k25 {
namespace {

// Bounds on what a report may claim, so that arithmetic on them later cannot overflow.
constexpr int kMaxTokens = 65536;  // as the config allows
constexpr int kMaxRanks = 1 << 20;
constexpr int kMaxOpsPerStep = 1 << 20;

// The value named `name`; std::invalid_argument (which the report reader turns into a usage error) otherwise.
template <typename E>
E parse_named(const char* what, const std::string& name) {
  if (const auto value = enum_from_name<E>(name)) return *value;
  throw std::invalid_argument(fmt::format("unknown {} '{}' (known: {})", what, name, enum_name_list<E>()));
}

}  // namespace

CollectiveKind default_kind(Phase phase) {
  switch (phase) {
    case Phase::dispatch:
    case Phase::combine:
      return CollectiveKind::alltoallv;
    case Phase::allgather:
      return CollectiveKind::allgather;
    case Phase::reducescatter:
      return CollectiveKind::reducescatter;
    case Phase::allreduce:
      break;
  }
  return CollectiveKind::allreduce;
}

CollectiveKind PhaseResult::kind() const {
  return kind_issued.value_or(default_kind(phase));
}

Phase parse_phase(const std::string& name) {
  return parse_named<Phase>("phase", name);
}

TimingMode parse_mode(const std::string& name) {
  return parse_named<TimingMode>("mode", name);
}

Dtype parse_dtype(const std::string& name) {
  return parse_named<Dtype>("dtype", name);
}

void to_json(nlohmann::json& j, const PhaseResult& r) {
  j = nlohmann::json{{"phase", to_string(r.phase)},
                     {"kind", to_string(r.kind())},
                     {"tokens", r.tokens},
                     {"requested_tokens", r.requested_tokens},
                     {"mode", to_string(r.mode)},
                     {"dtype", to_string(r.dtype)},
                     {"ranks", r.ranks},
                     {"ops_per_step", r.ops_per_step},
                     {"iterations", r.iterations},
                     {"op_iterations", r.op_iterations},
                     {"step_us", r.step_us},
                     {"op_us", r.op_us},
                     {"op_us_source", r.op_us_source},
                     {"algbw_gbps", r.algbw_gbps},
                     {"busbw_gbps", r.busbw_gbps},
                     {"wrong", r.wrong},
                     {"checked", r.checked},
                     {"slowest_rank", r.slowest_rank},
                     {"arrival_lead_us", r.arrival_lead_us},
                     {"launch_bound", r.launch_bound},
                     {"device_only", r.device_only}};
  j["launch_us"] = r.launch_us ? nlohmann::json(*r.launch_us) : nlohmann::json(nullptr);
  if (!r.backend.empty()) j["backend"] = r.backend;
  if (!r.not_run.empty()) j["not_run"] = r.not_run;
  if (!r.per_rank_bytes()) {
    j["bytes_per_op"] = r.bytes_per_op;
  } else {
    j["bytes_per_rank"] = {{"mean", r.bytes_per_rank_mean}, {"max", r.bytes_per_rank_max}};
  }
  if (r.mode == TimingMode::graph) j["above_graph_sizes"] = r.above_graph_sizes;
  if (r.link_fraction) j["link_fraction"] = *r.link_fraction;
  if (r.busbw_max_gbps) j["busbw_max_gbps"] = *r.busbw_max_gbps;
  if (r.decode) {
    const DecodeFigures& d = *r.decode;
    j["decode"] = {{"gap_configured_us", d.gap_configured_us},
                   {"skew_us", d.skew_us},
                   {"shape", d.shape},
                   {"gap_expected_us", d.gap_expected_us},
                   {"gap_measured_us", d.gap_measured_us},
                   {"comm_us", d.comm_us},
                   {"join_cost", optional_json(d.join_cost)},
                   {"comm_over_back_to_back", optional_json(d.comm_over_back_to_back)}};
  }
}

void from_json(const nlohmann::json& j, PhaseResult& r) {
  r.phase = parse_phase(j.at("phase").get<std::string>());
  r.kind_issued.reset();
  if (const auto kind = j.find("kind"); kind != j.end()) {
    const auto named = enum_from_name<CollectiveKind>(kind->get<std::string>());
    if (!named) throw std::invalid_argument("unknown kind '" + kind->get<std::string>() + "'");
    r.kind_issued = *named;
  }
  r.tokens = json_integer_at(j, "tokens", 1, kMaxTokens);
  r.mode = parse_mode(j.at("mode").get<std::string>());
  r.dtype = parse_dtype(j.at("dtype").get<std::string>());
  r.ranks = json_integer_or(j, "ranks", 0, 0, kMaxRanks);
  r.ops_per_step = json_integer_at(j, "ops_per_step", 0, kMaxOpsPerStep);
  r.iterations = json_integer_at(j, "iterations", 0);
  r.op_iterations = json_integer_or(j, "op_iterations", 0, 0);
  r.step_us = j.at("step_us").get<Stats>();
  r.op_us = j.at("op_us").get<Stats>();
  r.op_us_source = j.value("op_us_source", "");
  r.algbw_gbps = j.at("algbw_gbps").get<double>();
  r.busbw_gbps = j.at("busbw_gbps").get<double>();
  r.wrong = json_integer_at<std::uint64_t>(j, "wrong");
  r.checked = j.value("checked", false);
  r.slowest_rank = json_integer_at(j, "slowest_rank", -1, kMaxRanks);
  if (j.contains("bytes_per_op")) r.bytes_per_op = json_integer_at<std::uint64_t>(j, "bytes_per_op");
  if (j.contains("bytes_per_rank")) {
    r.bytes_per_rank_mean = j.at("bytes_per_rank").at("mean").get<double>();
    r.bytes_per_rank_max = j.at("bytes_per_rank").at("max").get<double>();
  }
  if (j.contains("link_fraction")) r.link_fraction = j.at("link_fraction").get<double>();
  // Fields added after schema_version 1's first release: optional on reading.
  if (j.contains("busbw_max_gbps")) r.busbw_max_gbps = j.at("busbw_max_gbps").get<double>();
  if (const auto launch = j.find("launch_us"); launch != j.end() && !launch->is_null())
    r.launch_us = launch->get<Stats>();
  r.launch_bound = j.value("launch_bound", false);
  r.device_only = j.value("device_only", false);
  r.arrival_lead_us = j.value("arrival_lead_us", 0.0);
  // Reports before graph padding measured what they were asked.
  r.requested_tokens = json_integer_or(j, "requested_tokens", r.tokens, 1, kMaxTokens);
  r.above_graph_sizes = j.value("above_graph_sizes", false);
  r.backend = j.value("backend", "");  // before backends (schema 4): the report's transport's (RunReport)
  r.not_run = j.value("not_run", "");
  r.decode.reset();
  if (const auto decode = j.find("decode"); decode != j.end() && !decode->is_null()) {
    DecodeFigures d;
    d.gap_configured_us = decode->at("gap_configured_us").get<double>();
    d.skew_us = decode->at("skew_us").get<double>();
    if (const auto shape = decode->find("shape"); shape != decode->end() && shape->is_string())
      d.shape = shape->get<std::string>();
    d.gap_expected_us = decode->at("gap_expected_us").get<double>();
    d.gap_measured_us = decode->at("gap_measured_us").get<Stats>();
    d.comm_us = decode->at("comm_us").get<Stats>();
    // join_cost and comm_over_back_to_back are derived: analyze_report recomputes them.
    r.decode = d;
  }
}

}  // namespace k25
