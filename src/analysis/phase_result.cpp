// JSON form of a measured point (report.json `results` and the journal's result lines).
#include "analysis/phase_result.hpp"

#include <stdexcept>

namespace k25 {

Phase parse_phase(const std::string& name) {
  if (name == "allreduce") return Phase::allreduce;
  if (name == "dispatch") return Phase::dispatch;
  if (name == "combine") return Phase::combine;
  throw std::invalid_argument("unknown phase '" + name + "'");
}

TimingMode parse_mode(const std::string& name) {
  if (name == "eager") return TimingMode::eager;
  if (name == "graph") return TimingMode::graph;
  throw std::invalid_argument("unknown mode '" + name + "'");
}

Dtype parse_dtype(const std::string& name) {
  if (name == "bf16") return Dtype::bf16;
  if (name == "fp32") return Dtype::fp32;
  if (name == "fp8") return Dtype::fp8;
  throw std::invalid_argument("unknown dtype '" + name + "'");
}

void to_json(nlohmann::json& j, const PhaseResult& r) {
  j = nlohmann::json{{"phase", to_string(r.phase)},
                     {"tokens", r.tokens},
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
                     {"slowest_rank", r.slowest_rank}};
  if (r.phase == Phase::allreduce) {
    j["bytes_per_op"] = r.bytes_per_op;
  } else {
    j["bytes_per_rank"] = {{"mean", r.bytes_per_rank_mean}, {"max", r.bytes_per_rank_max}};
  }
  if (r.link_fraction) j["link_fraction"] = *r.link_fraction;
}

void from_json(const nlohmann::json& j, PhaseResult& r) {
  r.phase = parse_phase(j.at("phase").get<std::string>());
  r.tokens = j.at("tokens").get<int>();
  r.mode = parse_mode(j.at("mode").get<std::string>());
  r.dtype = parse_dtype(j.at("dtype").get<std::string>());
  r.ranks = j.value("ranks", 0);
  r.ops_per_step = j.at("ops_per_step").get<int>();
  r.iterations = j.at("iterations").get<int>();
  r.op_iterations = j.value("op_iterations", 0);
  r.step_us = j.at("step_us").get<Stats>();
  r.op_us = j.at("op_us").get<Stats>();
  r.op_us_source = j.value("op_us_source", "");
  r.algbw_gbps = j.at("algbw_gbps").get<double>();
  r.busbw_gbps = j.at("busbw_gbps").get<double>();
  r.wrong = j.at("wrong").get<std::uint64_t>();
  r.checked = j.value("checked", false);
  r.slowest_rank = j.at("slowest_rank").get<int>();
  if (j.contains("bytes_per_op")) r.bytes_per_op = j.at("bytes_per_op").get<std::uint64_t>();
  if (j.contains("bytes_per_rank")) {
    r.bytes_per_rank_mean = j.at("bytes_per_rank").at("mean").get<double>();
    r.bytes_per_rank_max = j.at("bytes_per_rank").at("max").get<double>();
  }
  if (j.contains("link_fraction")) r.link_fraction = j.at("link_fraction").get<double>();
}

}  // namespace k25
