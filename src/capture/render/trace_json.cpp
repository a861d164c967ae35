// JSON form of a trace's figures (capture.json "trace").
#include <nlohmann/json.hpp>

#include "capture/model/trace_result.hpp"
#include "common/optional_json.hpp"

namespace k25 {
namespace {

using nlohmann::json;

json overlap_json(const CommOverlap& o) {
  return {{"merged_us", o.merged_us},
          {"overlapped_us", o.overlapped_us},
          {"exposed_us", o.exposed_us},
          {"overlap_percent", o.overlap_percent}};
}

json rank_json(const TraceRankResult& r) {
  json kinds = json::array();
  for (const KindTime& k : r.comm_kinds)
    kinds.push_back({{"kind", k.kind}, {"count", k.count}, {"sum_us", k.sum_us}, {"merged_us", k.merged_us}});
  json classes = json::array();
  for (const ClassTime& c : r.classes)
    classes.push_back(
        {{"class", c.cls}, {"count", c.count}, {"sum_us", c.sum_us}, {"merged_us", c.merged_us}});
  return {{"rank", r.rank},
          {"rank_source", r.rank_source},
          {"file", r.file},
          {"device", r.device},
          {"world_size", r.world_size == 0 ? json(nullptr) : json(r.world_size)},
          {"kernels", r.kernels},
          {"copies", r.copies},
          {"graph_kernels", r.graph_kernels},
          {"kernel_busy_us", r.kernel_busy_us},
          {"gpu_busy_us", r.gpu_busy_us},
          {"span_us", r.span_us},
          {"comm_kinds", kinds},
          {"comm", overlap_json(r.comm)},
          {"profiler_steps", r.profiler_steps ? overlap_json(*r.profiler_steps) : json(nullptr)},
          {"classes", classes},
          {"steps", r.steps}};
}

json group_json(const TraceStepGroup& g) {
  json classes = json::array();
  for (const TraceClassShare& c : g.classes)
    classes.push_back({{"class", c.cls},
                       {"kernels_per_step", c.kernels_per_step},
                       {"sum_us", c.sum_us},
                       {"merged_us", c.merged_us},
                       {"share", c.share}});
  json kinds = json::array();
  for (const TraceKindShare& k : g.kinds)
    kinds.push_back({{"kind", k.kind},
                     {"ops_per_step", k.ops_per_step},
                     {"op_us", k.op_us},
                     {"sum_us", k.sum_us},
                     {"merged_us", k.merged_us},
                     {"share", k.share},
                     {"bytes", k.bytes == 0 ? json(nullptr) : json(k.bytes)},
                     {"bytes_source", k.bytes_source},
                     {"dtype", k.dtype},
                     {"launch", k.launch}});
  return {{"phase", g.phase},
          {"batch", optional_json(g.batch)},
          {"tokens", optional_json(g.tokens)},
          {"rank", optional_json(g.rank)},
          {"steps", g.steps},
          {"wall_us", g.wall_us},
          {"busy_us", g.busy_us},
          {"idle_us", g.idle_us},
          {"host_us", optional_json(g.host_us)},
          {"comm_merged_us", g.comm_merged_us},
          {"comm_overlapped_us", g.comm_overlapped_us},
          {"comm_exposed_us", g.comm_exposed_us},
          {"comm_share", g.comm_share},
          {"exposed_share", g.exposed_share},
          {"comm_kernel_share", g.comm_kernel_share},
          {"classes", classes},
          {"kinds", kinds}};
}

}  // namespace

void to_json(nlohmann::json& j, const TraceResult& t) {
  json ranks = json::array();
  for (const TraceRankResult& r : t.ranks) ranks.push_back(rank_json(r));
  json groups = json::array();
  for (const TraceStepGroup& g : t.groups) groups.push_back(group_json(g));
  json join = json::array();
  for (const JoinCostGroup& g : t.join) {
    json arrivals = json::array();
    for (const RankArrival& a : g.arrivals)
      arrivals.push_back({{"rank", a.rank}, {"arrival_us", a.arrival_us}});
    join.push_back({{"phase", g.phase},
                    {"batch", optional_json(g.batch)},
                    {"kind", g.kind},
                    {"steps", g.steps},
                    {"collectives", g.collectives},
                    {"ranks", g.ranks},
                    {"start_spread_us", g.start_spread_us},
                    {"wait_us", g.wait_us},
                    {"transfer_us", g.transfer_us},
                    {"arrivals", arrivals},
                    {"last_rank", g.last_rank},
                    {"last_rank_share", g.last_rank_share},
                    {"last_ranks", g.last_ranks}});
  }
  json unclassified = json::array();
  for (const UnclassifiedKernel& u : t.unclassified)
    unclassified.push_back({{"name", u.name}, {"count", u.count}, {"sum_us", u.sum_us}, {"share", u.share}});
  json classes = json::array();
  for (const KernelClassInfo& c : kKernelClasses) classes.push_back({{"class", c.key}, {"title", c.title}});
  j = {{"kernel_class_tables", t.class_tables},
       {"kernel_classes", classes},
       {"steps",
        {{"method", t.step_method},
         {"detail", t.step_method_detail},
         {"gap_us", t.step_gap_us},
         {"count", t.steps},
         {"reference_rank", t.reference_rank < 0 ? json(nullptr) : json(t.reference_rank)}}},
       {"ranks", ranks},
       {"groups", groups},
       {"join", {{"reason", t.join_reason}, {"groups", join}}},
       {"unclassified", {{"share", t.unclassified_share}, {"kernels", unclassified}}},
       {"sizes", {{"trace", t.sizes_trace}, {"model", t.sizes_model}, {"unknown", t.sizes_unknown}}},
       {"notes", t.notes}};
}

}  // namespace k25
