// A capture base's caveats: one rank, a prefill step, sizes from the config.
#include "predict/capture_base_caveats.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "predict/kind_names.hpp"

namespace k25 {
namespace {

using nlohmann::json;

std::string text_at(const json& object, const char* key) {
  return object.is_object() && object.contains(key) && object[key].is_string()
             ? object[key].get<std::string>()
             : "";
}

// The step groups over all ranks (rank null) of trace.groups.
std::vector<const json*> all_rank_groups(const json& doc) {
  std::vector<const json*> groups;
  if (!doc.contains("trace") || !doc["trace"].is_object() || !doc["trace"].contains("groups") ||
      !doc["trace"]["groups"].is_array())
    return groups;
  for (const json& g : doc["trace"]["groups"])
    if (g.is_object() && (!g.contains("rank") || g["rank"].is_null())) groups.push_back(&g);
  return groups;
}

bool any_of_phase(const std::vector<const json*>& groups, const std::string& phase) {
  for (const json* g : groups)
    if (text_at(*g, "phase") == phase) return true;
  return false;
}

// The normalized kinds whose size a group of `phase` took from the config, over all its batches.
std::vector<std::string> kinds_sized_by_config(const std::vector<const json*>& groups,
                                               const std::string& phase) {
  std::vector<std::string> kinds;
  for (const json* g : groups) {
    if (text_at(*g, "phase") != phase || !g->contains("kinds") || !(*g)["kinds"].is_array()) continue;
    for (const json& k : (*g)["kinds"])
      if (text_at(k, "bytes_source") == "model") kinds.push_back(normalized_kind(text_at(k, "kind")));
  }
  return kinds;
}

}  // namespace

void add_capture_caveats(const json& doc, BaseDocument& base) {
  if (base.ranks == 1) base.caveats.push_back("one rank: nothing crosses a link");
  const std::vector<const json*> groups = all_rank_groups(doc);
  // The phase the levels are of, by base_from_capture's precedence: decode, else unknown, else prefill.
  const std::string phase = any_of_phase(groups, "decode")    ? "decode"
                            : any_of_phase(groups, "unknown") ? "unknown"
                                                              : "prefill";
  const std::vector<std::string> by_config = kinds_sized_by_config(groups, phase);
  for (BaseLevel& level : base.levels) {
    if (phase == "prefill")
      level.caveats.push_back(level.step_is_tpot
                                  ? "a prefill step set against decode TPOT (the trace holds no decode step)"
                                  : "a prefill step (the trace holds no decode step)");
    for (BaseKind& kind : level.kinds)
      if (std::find(by_config.begin(), by_config.end(), kind.kind) != by_config.end()) {
        kind.size_from_config = true;
        level.caveats.push_back(fmt::format("{}'s size from the --model config, not the trace", kind.name));
      }
  }
}

}  // namespace k25
