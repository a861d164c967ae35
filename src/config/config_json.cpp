// Serializes the effective config with the same key names as the YAML file.
#include "config/config_json.hpp"

namespace k25 {

nlohmann::json config_to_json(const RunConfig& c) {
  using nlohmann::json;
  const ModelSpec& m = c.model;
  json phases = json::array();
  if (c.sweep.run_allreduce) phases.push_back("allreduce");
  if (c.sweep.run_alltoall) phases.push_back("alltoall");
  if (c.sweep.run_serve) phases.push_back("serve");
  json modes = json::array();
  for (auto mode : c.sweep.modes) modes.push_back(to_string(mode));
  return json{
      {"model",
       {{"name", m.name},
        {"hidden_size", m.hidden_size},
        {"num_layers", m.num_layers},
        {"dense_layers", m.dense_layers},
        {"routed_experts", m.routed_experts},
        {"experts_per_token", m.experts_per_token},
        {"shared_experts", m.shared_experts},
        {"activation_dtype", to_string(m.activation_dtype)},
        {"allreduces_per_layer", m.allreduces_per_layer},
        {"embedding_allreduce", m.embedding_allreduce},
        {"dispatch_dtype", to_string(m.dispatch_dtype)},
        {"combine_dtype", to_string(m.combine_dtype)},
        {"fp8_scale_block", m.fp8_scale_block},
        {"dispatch_header_bytes", m.dispatch_header_bytes}}},
      {"routing",
       {{"model", to_string(c.routing.model)},
        {"zipf_s", c.routing.zipf_s},
        {"copies", to_string(c.routing.copies)},
        {"seed", c.routing.seed}}},
      {"sweep",
       {{"tokens", c.sweep.tokens},
        {"phases", phases},
        {"modes", modes},
        {"allreduce_dtype", to_string(c.sweep.allreduce_dtype)},
        {"in_place", c.sweep.in_place},
        {"warmup", c.sweep.warmup},
        {"iterations", c.sweep.iterations},
        {"min_iterations", c.sweep.min_iterations},
        {"op_iterations", c.sweep.op_iterations},
        {"time_budget_s", c.sweep.time_budget_s},
        {"check", c.sweep.check},
        {"include_permute", c.sweep.include_permute},
        {"device_only", c.sweep.device_only}}},
      {"transport",
       {{"backend", to_string(c.transport.backend)},
        {"timeout_s", c.transport.timeout_s},
        {"emulate_ranks", c.transport.emulate_ranks},
        {"inject_hang", c.transport.inject_hang},
        {"inject_delay", c.transport.inject_delay}}},
      {"serve",
       {{"endpoint", c.serve.endpoint},
        {"api", to_string(c.serve.api)},
        {"model", c.serve.model},
        {"api_key_set", !c.serve.api_key.empty()},
        {"concurrency", c.serve.concurrency},
        {"requests", c.serve.requests},
        {"warmup_requests", c.serve.warmup_requests},
        {"max_tokens", c.serve.max_tokens},
        {"prompt_tokens", c.serve.prompt_tokens},
        {"ignore_eos", c.serve.ignore_eos},
        {"request_rate", c.serve.request_rate},
        {"percentiles", c.serve.percentiles}}},
      {"output", {{"dir", c.output.dir}, {"trace", c.output.trace}}}};
}

}  // namespace k25
