// JSON form of the capture document (capture.json).
#include <nlohmann/json.hpp>

#include "capture/model/capture_result.hpp"
#include "common/optional_json.hpp"

namespace k25 {
namespace {

using nlohmann::json;

json input_json(const InputFile& f) {
  json j = {{"path", f.path},
            {"format", f.format},
            {"format_versions", f.format_versions},
            {"lines", f.lines},
            {"records",
             {{"coll", f.coll_records},
              {"p2p", f.p2p_records},
              {"dump_stats", f.dump_markers},
              {"proxy", f.proxy_records},
              {"other", f.other_records}}},
            {"cut", f.cut}};
  if (f.cut) j["cut_reason"] = f.cut_reason;
  if (f.format != "inspector")
    j["trace"] = {{"events", f.trace_events},
                  {"gpu_activities", f.gpu_activities},
                  {"kernels", f.kernels},
                  {"step_marks", f.step_marks},
                  {"graph_launches", f.graph_launches}};
  return j;
}

json model_json(const CaptureModel& m) {
  return {{"name", m.name},
          {"hidden_size", m.hidden_size},
          {"graph_sizes", m.graph_sizes},
          {"activation_bytes", m.activation_bytes},
          {"bytes_per_token", m.bytes_per_token()},
          {"allreduces_per_step", m.allreduces_per_step},
          {"allreduces_rule", m.allreduces_rule}};
}

json size_group_json(const SizeGroup& g) {
  return {{"kind", g.kind},
          {"bytes", g.bytes},
          {"tokens", optional_json(g.tokens)},
          {"phase", g.phase},
          {"mode", g.mode.empty() ? json(nullptr) : json(g.mode)},
          {"bytes_source", g.bytes_source},
          {"count", g.count},
          {"exec_us", g.exec_us},
          {"busbw_gbps", optional_json(g.busbw_gbps)},
          {"partial", g.partial},
          {"slowest_rank", g.slowest_rank},
          {"slowest_rank_share", g.slowest_rank_share}};
}

json step_json(const StepSummary& s) {
  json j = {{"found", s.found}};
  if (!s.found) {
    j["reason"] = s.reason;
    j["model_allreduces_per_step"] = optional_json(s.model_allreduces_per_step);
    return j;
  }
  json pattern = json::array();
  for (const auto& [kind, count] : s.pattern) pattern.push_back({{"kind", kind}, {"count", count}});
  json other = json::array();
  for (const auto& [shape, count] : s.other_shapes) other.push_back({{"shape", shape}, {"segments", count}});
  json by_size = json::array();
  for (const StepSizeGroup& g : s.by_size)
    by_size.push_back({{"bytes", g.bytes},
                       {"tokens", optional_json(g.tokens)},
                       {"phase", g.phase},
                       {"steps", g.steps},
                       {"partial_steps", g.partial_steps},
                       {"comm_us", g.comm_us},
                       {"size_kind_ops", g.size_kind_ops},
                       {"size_kind_us", g.size_kind_us}});
  json composition = json::array();
  for (const KindShare& k : s.composition)
    composition.push_back({{"kind", k.kind},
                           {"ops_per_step", k.ops_per_step},
                           {"us_per_step", k.us_per_step},
                           {"share", k.share}});
  j.update({{"method", s.method},
            {"anchor", s.anchor.empty() ? json(nullptr) : json(s.anchor)},
            {"pattern", pattern},
            {"pattern_text", s.pattern_text},
            {"ops_per_step", s.ops_per_step},
            {"size_kind", s.size_kind},
            {"bytes_per_token", optional_json(s.bytes_per_token)},
            {"model_allreduces_per_step", optional_json(s.model_allreduces_per_step)},
            {"matches_model", optional_json(s.matches_model)},
            {"decode_steps", s.decode_steps},
            {"phase_unknown_steps", s.phase_unknown_steps},
            {"prefill_steps", s.prefill_steps},
            {"partial_steps", s.partial_steps},
            {"incomplete_segments", s.incomplete_segments},
            {"other_segments", s.other_segments},
            {"other_shapes", other},
            {"ops_outside_steps", s.ops_outside_steps},
            {"prefill_above_bytes", s.prefill_above_bytes},
            {"prefill_rule", s.prefill_rule},
            {"decode_comm_us", optional_json(s.decode_comm_us)},
            {"prefill_comm_us", optional_json(s.prefill_comm_us)},
            {"by_size", by_size},
            {"composition", composition}});
  return j;
}

json communicator_json(const CommunicatorResult& c) {
  json hosts = json::object();
  for (const auto& [rank, host] : c.rank_host) hosts[std::to_string(rank)] = host;
  json by_size = json::array();
  for (const SizeGroup& g : c.by_size) by_size.push_back(size_group_json(g));
  json p2p = json::array();
  for (const P2pGroup& g : c.p2p)
    p2p.push_back({{"kind", g.kind},
                   {"records", g.records},
                   {"total_bytes", g.total_bytes},
                   {"bytes", g.bytes},
                   {"exec_us", g.exec_us},
                   {"busbw_gbps", optional_json(g.busbw_gbps)},
                   {"ranks", g.ranks},
                   {"peers", g.peers}});
  const SamplingSummary& s = c.sampling;
  return {
      {"id", c.id},
      {"name", c.name},
      {"n_ranks", c.n_ranks},
      {"nnodes", c.nnodes},
      {"ranks", c.ranks},
      {"missing_rank_count", c.missing_rank_count},
      {"missing_ranks", c.missing_ranks},
      {"rank_hosts", hosts},
      {"conflicts", c.conflicts},
      {"format_versions", c.format_versions},
      {"timing_sources", c.timing_sources},
      {"records", {{"coll", c.coll_records}, {"p2p", c.p2p_records}, {"duplicates", c.duplicate_records}}},
      {"dump_stats_records", c.dump_markers},
      {"joined_ops", c.joined_ops},
      {"partial_ops", c.partial_ops},
      {"size_mismatches", c.size_mismatches},
      {"ops_not_in_sequence", c.ops_not_in_sequence},
      {"reference_rank", c.reference_rank},
      {"sequence_order", c.sequence_order},
      {"sampling",
       {{"expected_ops", s.expected_ops},
        {"recorded_ops", s.recorded_ops},
        {"missing_ops", s.missing_ops},
        {"coverage", s.coverage},
        {"consecutive_fraction", s.consecutive_fraction},
        {"coll_dropped_reported", s.coll_dropped_reported},
        {"p2p_dropped_reported", s.p2p_dropped_reported},
        {"verdict", s.verdict},
        {"explanation", s.explanation}}},
      {"step", step_json(c.step)},
      {"by_size", by_size},
      {"p2p", p2p}};
}

json replay_json(const ReplayComparison& r) {
  json ops = json::array();
  for (const ReplayOpRow& row : r.ops) {
    json matches = json::array();
    for (const ReplayMatch& m : row.replay)
      matches.push_back(
          {{"mode", m.mode}, {"tokens", m.tokens}, {"op_us_p50", m.op_us_p50}, {"ratio", m.ratio}});
    ops.push_back({{"communicator", row.comm},
                   {"kind", row.kind},
                   {"bytes", row.bytes},
                   {"tokens", optional_json(row.tokens)},
                   {"phase", row.phase},
                   {"mode", row.mode.empty() ? json(nullptr) : json(row.mode)},
                   {"count", row.count},
                   {"captured_us_p50", row.captured_us_p50},
                   {"replay", matches}});
  }
  json steps = json::array();
  for (const ReplayStepRow& row : r.steps) {
    json matches = json::array();
    for (const ReplayStepMatch& m : row.replay)
      matches.push_back({{"mode", m.mode},
                         {"ops_per_step", m.ops_per_step},
                         {"step_us_p50", m.step_us_p50},
                         {"per_op_ratio", m.per_op_ratio}});
    steps.push_back({{"communicator", row.comm},
                     {"tokens", row.tokens},
                     {"steps", row.steps},
                     {"allreduces_per_step", row.allreduces_per_step},
                     {"captured_allreduce_us_p50", row.captured_allreduce_us_p50},
                     {"captured_step_us_p50", row.captured_step_us_p50},
                     {"replay", matches}});
  }
  json shares = json::array();
  for (const ReplayShareRow& row : r.shares) {
    json matches = json::array();
    for (const ReplayShareMatch& m : row.replay)
      matches.push_back({{"concurrency", m.concurrency},
                         {"tpot_ms", m.tpot_ms},
                         {"key", m.key},
                         {"comm_ms", m.comm_ms},
                         {"share", m.share}});
    shares.push_back({{"batch", row.batch},
                      {"steps", row.steps},
                      {"trace_wall_ms", row.trace_wall_ms},
                      {"trace_comm_ms", row.trace_comm_ms},
                      {"trace_share", row.trace_share},
                      {"trace_exposed_share", row.trace_exposed_share},
                      {"replay", matches}});
  }
  return {{"path", r.path}, {"ranks", r.ranks}, {"transport", r.transport}, {"model", r.model},
          {"ops", ops},     {"steps", steps},   {"shares", shares},         {"notes", r.notes}};
}

json attribution_json(const LiveAttributionRow& row) {
  json replay = json::array();
  for (const LiveAttributionReplay& r : row.replay)
    replay.push_back({{"mode", r.mode}, {"comm_ms", r.comm_ms}, {"share", r.share}});
  json j = {{"concurrency", optional_json(row.concurrency)},
            {"tpot_ms", row.tpot_ms},
            {"tpot_source", row.tpot_source},
            {"tokens", optional_json(row.tokens)},
            {"captured_steps", row.captured_steps},
            {"captured_comm_ms", optional_json(row.captured_comm_ms)},
            {"captured_share", optional_json(row.captured_share)},
            {"replay", replay},
            {"trace_steps", row.trace_steps},
            {"trace_step_ms", optional_json(row.trace_step_ms)},
            {"trace_comm_ms", optional_json(row.trace_comm_ms)},
            {"trace_share", optional_json(row.trace_share)}};
  if (!row.captured_reason.empty()) j["captured_reason"] = row.captured_reason;
  return j;
}

}  // namespace

void to_json(nlohmann::json& j, const CaptureResult& r) {
  json inputs = json::array();
  for (const InputFile& f : r.inputs) inputs.push_back(input_json(f));
  json comms = json::array();
  for (const CommunicatorResult& c : r.communicators) comms.push_back(communicator_json(c));
  json attribution = json::array();
  for (const LiveAttributionRow& row : r.attribution) attribution.push_back(attribution_json(row));
  j = {{"schema_version", r.schema_version},
       {"tool", r.tool},
       {"capture",
        {{"created_at", r.created_at},
         {"command_line", r.command_line},
         {"inputs", inputs},
         {"model", r.model ? model_json(*r.model) : json(nullptr)},
         {"model_config", r.model_config},
         {"prefill_factor", r.prefill_factor},
         {"prefill_tokens", optional_json(r.prefill_tokens)},
         {"notes", r.notes}}},
       {"communicators", comms},
       {"replay", r.replay ? replay_json(*r.replay) : json(nullptr)},
       {"attribution", attribution},
       {"trace", r.trace.present ? json(r.trace) : json(nullptr)},
       {"emit_config",
        {{"requested", r.emit_config.requested},
         {"written", r.emit_config.written},
         {"path", r.emit_config.path},
         {"reason", r.emit_config.reason}}}};
}

}  // namespace k25
