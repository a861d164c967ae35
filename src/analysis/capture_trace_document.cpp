// capture.json's "trace", written and read back through one list of its members per type.
#include "analysis/capture_trace_document.hpp"

namespace k25 {

// Each type's members in capture.json (common/document_members.hpp).

template <class V, MembersOf<CommOverlap> S>
void document_members(V& v, S& o) {
  v("merged_us", o.merged_us);
  v("overlapped_us", o.overlapped_us);
  v("exposed_us", o.exposed_us);
  v("overlap_percent", o.overlap_percent);
}

template <class V, MembersOf<KindTime> S>
void document_members(V& v, S& k) {
  v("kind", k.kind);
  v("count", k.count);
  v("sum_us", k.sum_us);
  v("merged_us", k.merged_us);
}

template <class V, MembersOf<ClassTime> S>
void document_members(V& v, S& c) {
  v("class", c.cls);
  v("count", c.count);
  v("sum_us", c.sum_us);
  v("merged_us", c.merged_us);
}

template <class V, MembersOf<TraceRankResult> S>
void document_members(V& v, S& r) {
  v("rank", r.rank);
  v("rank_source", r.rank_source);
  v("file", r.file);
  v("device", r.device);
  v("world_size", null_as(r.world_size, 0));
  v("kernels", r.kernels);
  v("copies", r.copies);
  v("graph_kernels", r.graph_kernels);
  v("kernel_busy_us", r.kernel_busy_us);
  v("gpu_busy_us", r.gpu_busy_us);
  v("span_us", r.span_us);
  v("comm_kinds", r.comm_kinds);
  v("comm", r.comm);
  v("profiler_steps", r.profiler_steps);
  v("classes", r.classes);
  v("steps", r.steps);
}

template <class V, MembersOf<TraceClassShare> S>
void document_members(V& v, S& c) {
  v("class", c.cls);
  v("kernels_per_step", c.kernels_per_step);
  v("sum_us", c.sum_us);
  v("merged_us", c.merged_us);
  v("share", c.share);
}

template <class V, MembersOf<TraceKindShare> S>
void document_members(V& v, S& k) {
  v("kind", k.kind);
  v("ops_per_step", k.ops_per_step);
  v("op_us", k.op_us);
  v("sum_us", k.sum_us);
  v("merged_us", k.merged_us);
  v("share", k.share);
  v("bytes", null_as(k.bytes, 0));
  v("bytes_source", k.bytes_source);
  v("dtype", k.dtype);
  v("launch", k.launch);
}

template <class V, MembersOf<TraceStepGroup> S>
void document_members(V& v, S& g) {
  v("phase", g.phase);
  v("batch", g.batch);
  v("tokens", g.tokens);
  v("rank", g.rank);
  v("steps", g.steps);
  v("wall_us", g.wall_us);
  v("busy_us", g.busy_us);
  v("idle_us", g.idle_us);
  v("host_us", g.host_us);
  v("comm_merged_us", g.comm_merged_us);
  v("comm_overlapped_us", g.comm_overlapped_us);
  v("comm_exposed_us", g.comm_exposed_us);
  v("comm_share", g.comm_share);
  v("exposed_share", g.exposed_share);
  v("comm_kernel_share", g.comm_kernel_share);
  v("classes", g.classes);
  v("kinds", g.kinds);
}

template <class V, MembersOf<RankArrival> S>
void document_members(V& v, S& a) {
  v("rank", a.rank);
  v("arrival_us", a.arrival_us);
}

template <class V, MembersOf<JoinCostGroup> S>
void document_members(V& v, S& g) {
  v("phase", g.phase);
  v("batch", g.batch);
  v("kind", g.kind);
  v("steps", g.steps);
  v("collectives", g.collectives);
  v("ranks", g.ranks);
  v("start_spread_us", g.start_spread_us);
  v("wait_us", g.wait_us);
  v("transfer_us", g.transfer_us);
  v("arrivals", g.arrivals);
  v("last_rank", g.last_rank);
  v("last_rank_share", g.last_rank_share);
  v("last_ranks", g.last_ranks);
}

template <class V, MembersOf<BackendRow> S>
void document_members(V& v, S& b) {
  v("kind", b.kind);
  v("bytes", b.bytes);
  v("backend", b.backend);
  v("count", b.count);
  v("op_us", b.op_us_p50);
}

template <class V, MembersOf<BackendRuleNote> S>
void document_members(V& v, S& n) {
  v("backend", n.backend);
  v("ranks", n.ranks);
  v("rule", n.rule);
  v("source", n.source);
}

template <class V, MembersOf<UnclassifiedKernel> S>
void document_members(V& v, S& u) {
  v("name", u.name);
  v("count", u.count);
  v("sum_us", u.sum_us);
  v("share", u.share);
}

namespace {

// The kernel classes' keys and titles (analysis/kernel_class.hpp), written for readers of the file.
nlohmann::json kernel_classes_json() {
  nlohmann::json classes = nlohmann::json::array();
  for (const KernelClassInfo& c : kKernelClasses) classes.push_back({{"class", c.key}, {"title", c.title}});
  return classes;
}

}  // namespace

template <class V, MembersOf<TraceResult> S>
void document_members(V& v, S& t) {
  v("kernel_class_tables", t.class_tables);
  v.derived("kernel_classes", kernel_classes_json());
  v.object("steps", [&](auto& steps) {
    steps("method", t.step_method);
    steps("detail", t.step_method_detail);
    steps("gap_us", t.step_gap_us);
    steps("count", t.steps);
    steps("marks_without_gpu_work", t.marks_without_gpu_work);
    steps("reference_rank", null_as(t.reference_rank, -1));
  });
  v("ranks", t.ranks);
  v("groups", t.groups);
  v.object("join", [&](auto& join) {
    join("reason", t.join_reason);
    join("groups", t.join);
  });
  v("backends", t.backends);
  v("backend_rules", t.backend_rules);
  v.object("unclassified", [&](auto& unclassified) {
    unclassified("share", t.unclassified_share);
    unclassified("kernels", t.unclassified);
  });
  v.object("sizes", [&](auto& sizes) {
    sizes("trace", t.sizes_trace);
    sizes("model", t.sizes_model);
    sizes("unknown", t.sizes_unknown);
  });
  v("notes", t.notes);
}

void to_json(nlohmann::json& j, const TraceResult& trace) {
  j = document_value(trace);
}

void read_trace_document(const nlohmann::json& in, TraceResult& trace, const ReadPlace& place) {
  read_document_value(in, trace, place);
  trace.present = true;
}

}  // namespace k25
