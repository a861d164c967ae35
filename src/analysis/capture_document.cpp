// capture.json written and read back through one list of its members per type (common/document_members.hpp).
#include "analysis/capture_document.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "common/error.hpp"

namespace k25 {
namespace {

// An input's format as its key ("kineto"), read back through the one table of names.
template <class F>
struct InputFormatKey {
  F& format;
  nlohmann::json write() const { return to_string(format); }
  void read(const nlohmann::json& in, const ReadPlace& place) const {
    std::string key;
    read_document_value(in, key, place);
    const auto named = std::find_if(kInputFormatNames.begin(), kInputFormatNames.end(),
                                    [&](const InputFormatName& n) { return key == n.key; });
    if (named == kInputFormatNames.end()) place.fail("no input format '" + key + "'");
    format = named->format;
  }
};
template <class F>
InputFormatKey<F> input_format_key(F& format) {
  return {format};
}

// The trace part: null where no trace was read (capture_trace_document.cpp writes and reads the rest).
template <class T>
struct TraceOrNull {
  T& trace;
  nlohmann::json write() const { return trace.present ? nlohmann::json(trace) : nlohmann::json(nullptr); }
  void read(const nlohmann::json& in, const ReadPlace& place) const {
    trace.present = !in.is_null();
    if (trace.present) read_trace_document(in, trace, place);
  }
};
template <class T>
TraceOrNull<T> trace_or_null(T& trace) {
  return {trace};
}

}  // namespace

template <class V, MembersOf<InputFile> S>
void document_members(V& v, S& f) {
  v("path", f.path);
  v("format", input_format_key(f.format));
  v("format_versions", f.format_versions);
  v("lines", f.lines);
  v.object("records", [&](auto& records) {
    records("coll", f.coll_records);
    records("p2p", f.p2p_records);
    records("dump_stats", f.dump_markers);
    records("proxy", f.proxy_records);
    records("other", f.other_records);
  });
  v("cut", f.cut);
  if (f.cut) v("cut_reason", f.cut_reason);
  if (f.format != InputFormat::inspector)
    v.object("trace", [&](auto& trace) {
      trace("events", f.trace_events);
      trace("gpu_activities", f.gpu_activities);
      trace("kernels", f.kernels);
      trace("step_marks", f.step_marks);
      trace("graph_launches", f.graph_launches);
    });
}

template <class V, MembersOf<CaptureModel> S>
void document_members(V& v, S& m) {
  v("name", m.name);
  v("hidden_size", m.hidden_size);
  v("graph_sizes", m.graph_sizes);
  v("activation_bytes", m.activation_bytes);
  v.derived("bytes_per_token", m.bytes_per_token());
  v("allreduces_per_step", m.allreduces_per_step);
  v("allreduces_rule", m.allreduces_rule);
}

template <class V, MembersOf<SizeGroup> S>
void document_members(V& v, S& g) {
  v("kind", g.kind);
  v("bytes", g.bytes);
  v("tokens", g.tokens);
  v("phase", g.phase);
  v("mode", null_as(g.mode, ""));
  v("bytes_source", g.bytes_source);
  v("count", g.count);
  v("exec_us", g.exec_us);
  v("busbw_gbps", g.busbw_gbps);
  v("partial", g.partial);
  v("slowest_rank", g.slowest_rank);
  v("slowest_rank_share", g.slowest_rank_share);
}

template <class V, MembersOf<StepSizeGroup> S>
void document_members(V& v, S& g) {
  v("bytes", g.bytes);
  v("tokens", g.tokens);
  v("phase", g.phase);
  v("steps", g.steps);
  v("partial_steps", g.partial_steps);
  v("comm_us", g.comm_us);
  v("size_kind_ops", g.size_kind_ops);
  v("size_kind_us", g.size_kind_us);
}

template <class V, MembersOf<KindShare> S>
void document_members(V& v, S& k) {
  v("kind", k.kind);
  v("ops_per_step", k.ops_per_step);
  v("us_per_step", k.us_per_step);
  v("share", k.share);
}

template <class V, MembersOf<StepSummary> S>
void document_members(V& v, S& s) {
  v("found", s.found);
  if (!s.found) {
    v("reason", s.reason);
    v("model_allreduces_per_step", s.model_allreduces_per_step);
    return;
  }
  v("method", s.method);
  v("anchor", null_as(s.anchor, ""));
  v("pattern", named_pairs("kind", "count", s.pattern));
  v("pattern_text", s.pattern_text);
  v("ops_per_step", s.ops_per_step);
  v("size_kind", s.size_kind);
  v("bytes_per_token", s.bytes_per_token);
  v("model_allreduces_per_step", s.model_allreduces_per_step);
  v("matches_model", s.matches_model);
  v("decode_steps", s.decode_steps);
  v("phase_unknown_steps", s.phase_unknown_steps);
  v("prefill_steps", s.prefill_steps);
  v("partial_steps", s.partial_steps);
  v("incomplete_segments", s.incomplete_segments);
  v("other_segments", s.other_segments);
  v("other_shapes", named_pairs("shape", "segments", s.other_shapes));
  v("ops_outside_steps", s.ops_outside_steps);
  v("prefill_above_bytes", s.prefill_above_bytes);
  v("prefill_rule", s.prefill_rule);
  v("decode_comm_us", s.decode_comm_us);
  v("prefill_comm_us", s.prefill_comm_us);
  v("by_size", s.by_size);
  v("composition", s.composition);
}

template <class V, MembersOf<P2pGroup> S>
void document_members(V& v, S& g) {
  v("kind", g.kind);
  v("records", g.records);
  v("total_bytes", g.total_bytes);
  v("bytes", g.bytes);
  v("exec_us", g.exec_us);
  v("busbw_gbps", g.busbw_gbps);
  v("ranks", g.ranks);
  v("peers", g.peers);
}

template <class V, MembersOf<SamplingSummary> S>
void document_members(V& v, S& s) {
  v("expected_ops", s.expected_ops);
  v("recorded_ops", s.recorded_ops);
  v("missing_ops", s.missing_ops);
  v("coverage", s.coverage);
  v("consecutive_fraction", s.consecutive_fraction);
  v("coll_dropped_reported", s.coll_dropped_reported);
  v("p2p_dropped_reported", s.p2p_dropped_reported);
  v("verdict", s.verdict);
  v("explanation", s.explanation);
}

template <class V, MembersOf<CommunicatorResult> S>
void document_members(V& v, S& c) {
  v("id", c.id);
  v("name", c.name);
  v("n_ranks", c.n_ranks);
  v("nnodes", c.nnodes);
  v("ranks", c.ranks);
  v("missing_rank_count", c.missing_rank_count);
  v("missing_ranks", c.missing_ranks);
  v("rank_hosts", c.rank_host);
  v("conflicts", c.conflicts);
  v("format_versions", c.format_versions);
  v("timing_sources", c.timing_sources);
  v.object("records", [&](auto& records) {
    records("coll", c.coll_records);
    records("p2p", c.p2p_records);
    records("duplicates", c.duplicate_records);
  });
  v("dump_stats_records", c.dump_markers);
  v("joined_ops", c.joined_ops);
  v("partial_ops", c.partial_ops);
  v("size_mismatches", c.size_mismatches);
  v("ops_not_in_sequence", c.ops_not_in_sequence);
  v("reference_rank", c.reference_rank);
  v("sequence_order", c.sequence_order);
  v("sampling", c.sampling);
  v("step", c.step);
  v("by_size", c.by_size);
  v("p2p", c.p2p);
}

template <class V, MembersOf<ReplayMatch> S>
void document_members(V& v, S& m) {
  v("mode", m.mode);
  v("tokens", m.tokens);
  v("op_us_p50", m.op_us_p50);
  v("ratio", m.ratio);
}

template <class V, MembersOf<ReplayOpRow> S>
void document_members(V& v, S& row) {
  v("communicator", row.comm);
  v("kind", row.kind);
  v("bytes", row.bytes);
  v("tokens", row.tokens);
  v("phase", row.phase);
  v("mode", null_as(row.mode, ""));
  v("count", row.count);
  v("captured_us_p50", row.captured_us_p50);
  v("replay", row.replay);
}

template <class V, MembersOf<ReplayStepMatch> S>
void document_members(V& v, S& m) {
  v("mode", m.mode);
  v("ops_per_step", m.ops_per_step);
  v("step_us_p50", m.step_us_p50);
  v("per_op_ratio", m.per_op_ratio);
}

template <class V, MembersOf<ReplayStepRow> S>
void document_members(V& v, S& row) {
  v("communicator", row.comm);
  v("tokens", row.tokens);
  v("steps", row.steps);
  v("allreduces_per_step", row.allreduces_per_step);
  v("captured_allreduce_us_p50", row.captured_allreduce_us_p50);
  v("captured_step_us_p50", row.captured_step_us_p50);
  v("replay", row.replay);
}

template <class V, MembersOf<ReplayShareMatch> S>
void document_members(V& v, S& m) {
  v("concurrency", m.concurrency);
  v("tpot_ms", m.tpot_ms);
  v("key", m.key);
  v("comm_ms", m.comm_ms);
  v("share", m.share);
}

template <class V, MembersOf<ReplayShareRow> S>
void document_members(V& v, S& row) {
  v("batch", row.batch);
  v("steps", row.steps);
  v("trace_wall_ms", row.trace_wall_ms);
  v("trace_comm_ms", row.trace_comm_ms);
  v("trace_share", row.trace_share);
  v("trace_exposed_share", row.trace_exposed_share);
  v("replay", row.replay);
}

template <class V, MembersOf<ReplayComparison> S>
void document_members(V& v, S& r) {
  v("path", r.path);
  v("ranks", r.ranks);
  v("transport", r.transport);
  v("model", r.model);
  v("ops", r.ops);
  v("steps", r.steps);
  v("shares", r.shares);
  v("notes", r.notes);
}

template <class V, MembersOf<LiveAttributionReplay> S>
void document_members(V& v, S& r) {
  v("mode", r.mode);
  v("comm_ms", r.comm_ms);
  v("share", r.share);
}

template <class V, MembersOf<LiveAttributionRow> S>
void document_members(V& v, S& row) {
  v("concurrency", row.concurrency);
  v("tpot_ms", row.tpot_ms);
  v("tpot_source", row.tpot_source);
  v("tokens", row.tokens);
  v("captured_steps", row.captured_steps);
  v("captured_comm_ms", row.captured_comm_ms);
  v("captured_share", row.captured_share);
  v("captured_reason", row.captured_reason);
  v("replay", row.replay);
  v("trace_steps", row.trace_steps);
  v("trace_step_ms", row.trace_step_ms);
  v("trace_comm_ms", row.trace_comm_ms);
  v("trace_share", row.trace_share);
}

template <class V, MembersOf<CaptureResult> S>
void document_members(V& v, S& r) {
  v("schema_version", r.schema_version);
  v("tool", r.tool);
  v.object("capture", [&](auto& capture) {
    capture("created_at", r.created_at);
    capture("command_line", r.command_line);
    capture("inputs", r.inputs);
    capture("model", r.model);
    capture("model_config", r.model_config);
    capture("prefill_factor", r.prefill_factor);
    capture("prefill_tokens", r.prefill_tokens);
    capture("notes", r.notes);
  });
  v("communicators", r.communicators);
  v("replay", r.replay);
  v("attribution", r.attribution);
  v("trace", trace_or_null(r.trace));
  v.object("emit_config", [&](auto& emit) {
    emit("requested", r.emit_config.requested);
    emit("written", r.emit_config.written);
    emit("path", r.emit_config.path);
    emit("reason", r.emit_config.reason);
  });
}

void to_json(nlohmann::json& j, const CaptureResult& r) {
  j = document_value(r);
}

void from_json(const nlohmann::json& j, CaptureResult& r) {
  if (!j.is_object()) throw std::invalid_argument("not a JSON object");
  const int version = json_integer_at<int>(j, "schema_version");
  read_document_value(j, r, ReadPlace{"", version >= kCaptureSchemaVersion});
}

bool looks_like_capture_json(const nlohmann::json& doc) {
  return doc.is_object() && doc.contains("capture") && doc.contains("communicators");
}

CaptureResult read_capture_document(const nlohmann::json& doc, const std::string& path) {
  if (!looks_like_capture_json(doc))
    throw UsageError(path + ": not a capture.json (a JSON object with \"capture\" and \"communicators\")");
  try {
    const int version = json_integer_at<int>(doc, "schema_version");
    if (version > kCaptureSchemaVersion)
      throw UsageError(fmt::format(
          "{}: capture.json schema_version {} is newer than this k25comm reads ({}): read it with the k25comm that wrote it",
          path, version, kCaptureSchemaVersion));
    if (version < kOldestReadableCaptureSchemaVersion)
      throw UsageError(
          fmt::format("{}: capture.json schema_version {} is no version k25comm wrote", path, version));
    CaptureResult capture;
    from_json(doc, capture);
    return capture;
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("{}: capture.json {}", path, e.what()));
  }
}

}  // namespace k25
