// One finding of doctor about a node, typed: which kind of verdict, how much it matters, what was seen (with
// the lines it was read from), what it costs, what fixes it and where that advice comes from.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/enum_names.hpp"
#include "doctor/model/fact_source.hpp"

namespace k25 {

// "cost": it costs now; "check": it may cost, verify; "info": a fact worth knowing that costs nothing;
// "unseen": what doctor could not see.
enum class Severity { cost, check, info, unseen };

template <>
struct EnumNames<Severity> {
  static constexpr std::array<std::pair<Severity, std::string_view>, 4> values{{
      {Severity::cost, "cost"},
      {Severity::check, "check"},
      {Severity::info, "info"},
      {Severity::unseen, "unseen"},
  }};
};

// Every kind of verdict, in the order doctor lists them (verdict_kinds() holds each one's words).
enum class VerdictId {
  acs_redirect,
  iommu_translated,
  nccl_not_p2p,
  switch_through_cpu,
  p2p_slower_than_disabled,
  p2p_env_limited,
  nccl_version_gpu,
  nvml_p2p_unsupported,
  dcgm_failed,
  link_below_max,
  slot_below_gpu,
  across_host_bridges,
  cross_socket,
  rank_far_from_gpu,
  nvlink_pairs,
  engine_custom_allreduce_off,
  backend_rule,
  acs_unknown,
  no_gpu,
};

template <>
struct EnumNames<VerdictId> {
  static constexpr std::array<std::pair<VerdictId, std::string_view>, 19> values{{
      {VerdictId::acs_redirect, "acs_redirect"},
      {VerdictId::iommu_translated, "iommu_translated"},
      {VerdictId::nccl_not_p2p, "nccl_not_p2p"},
      {VerdictId::switch_through_cpu, "switch_through_cpu"},
      {VerdictId::p2p_slower_than_disabled, "p2p_slower_than_disabled"},
      {VerdictId::p2p_env_limited, "p2p_env_limited"},
      {VerdictId::nccl_version_gpu, "nccl_version_gpu"},
      {VerdictId::nvml_p2p_unsupported, "nvml_p2p_unsupported"},
      {VerdictId::dcgm_failed, "dcgm_failed"},
      {VerdictId::link_below_max, "link_below_max"},
      {VerdictId::slot_below_gpu, "slot_below_gpu"},
      {VerdictId::across_host_bridges, "across_host_bridges"},
      {VerdictId::cross_socket, "cross_socket"},
      {VerdictId::rank_far_from_gpu, "rank_far_from_gpu"},
      {VerdictId::nvlink_pairs, "nvlink_pairs"},
      {VerdictId::engine_custom_allreduce_off, "engine_custom_allreduce_off"},
      {VerdictId::backend_rule, "backend_rule"},
      {VerdictId::acs_unknown, "acs_unknown"},
      {VerdictId::no_gpu, "no_gpu"},
  }};
};

struct NodeVerdict {
  VerdictId id = VerdictId::no_gpu;
  Severity severity = Severity::unseen;  // the kind's, or weaker where the evidence is weaker than the kind's
  std::string finding;                   // what was seen, concretely (bus ids, GPUs, figures)
  std::string cost;                      // what it costs here
  std::string fix;                       // what to do here (commands with this host's bus ids)
  std::string source;                    // "NCCL troubleshooting guide, PCI Access Control Services (ACS)"
  std::string url;
  std::vector<FactSource> evidence;  // the lines the finding was read from (file and line), where pasted

  // "cost: FINDING: COST. Fix: FIX [source: SOURCE, URL]"
  std::string line() const;

  bool operator==(const NodeVerdict&) const = default;
};

void to_json(nlohmann::json& j, const NodeVerdict& v);
// Throws std::invalid_argument for an id this k25comm does not know.
void from_json(const nlohmann::json& j, NodeVerdict& v);

}  // namespace k25
