// Another run's AllReduce rows merged as backend variants, checked like for like.
#include "analysis/backend_merge.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "analysis/compare.hpp"
#include "analysis/report_identity.hpp"
#include "common/error.hpp"

namespace k25 {
namespace {

// The setup fields of compare that make two rows the same measurement; the registration is what a variant
// may change.
bool like_for_like_field(const SetupField& field) {
  return field.of_result && field.name != "nccl_register";
}

std::string config_string(const RunReport& report, const char* section, const char* key) {
  const nlohmann::json& config = report.run.config;
  if (!config.is_object() || !config.contains(section) || !config[section].is_object()) return "none";
  const nlohmann::json value = config[section].value(key, nlohmann::json());
  return value.is_string() ? value.get<std::string>() : "none";
}

// What sets `other` apart from `report`, in words: "register=symmetric", "NCCL_PROTO=LL NCCL_ALGO=Ring".
std::string variant_words(const RunReport& report, const RunReport& other, const std::string& other_path) {
  std::vector<std::string> words;
  const std::string reg = config_string(other, "transport", "nccl_register");
  if (reg != config_string(report, "transport", "nccl_register")) words.push_back("register=" + reg);
  for (const auto& [name, value] : other.run.env) {
    if (!name.starts_with("NCCL_")) continue;
    const auto mine = report.run.env.find(name);
    if (mine == report.run.env.end() || mine->second != value) words.push_back(name + "=" + value);
  }
  for (const auto& [name, value] : report.run.env)
    if (name.starts_with("NCCL_") && !other.run.env.count(name)) words.push_back(name + " unset");
  if (words.empty()) {
    const std::filesystem::path folder = std::filesystem::path(other_path).parent_path().filename();
    words.push_back(folder.empty() ? other_path : folder.string());
  }
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "" : " ") + word;
  return text;
}

std::set<std::string> backend_names(const RunReport& report) {
  std::set<std::string> names = {report.run.transport};
  for (const PhaseResult& r : report.backend_results) names.insert(r.backend);
  return names;
}

const PhaseResult* same_point(const RunReport& report, const PhaseResult& row) {
  for (const auto* results : {&report.results, &report.backend_results})
    for (const PhaseResult& r : *results)
      if (r.ran() && r.phase == row.phase && r.requested_tokens == row.requested_tokens && r.mode == row.mode)
        return &r;
  return nullptr;
}

}  // namespace

void merge_backend_variants(RunReport& report, const RunReport& other, const std::string& other_path) {
  const std::string model = report_model_name(report), other_model = report_model_name(other);
  if (!model.empty() && !other_model.empty() && model != other_model)
    throw UsageError(fmt::format("--backends-from {}: a run of model '{}', this report is of '{}'",
                                 other_path, other_model, model));
  std::vector<PhaseResult> rows;
  for (const auto* results : {&other.results, &other.backend_results})
    for (const PhaseResult& r : *results)
      if (r.phase == Phase::allreduce && r.kind() == CollectiveKind::allreduce) rows.push_back(r);
  if (rows.empty())
    throw UsageError(fmt::format("--backends-from {}: it has no AllReduce results to merge", other_path));
  for (const PhaseResult& row : rows) {
    const PhaseResult* mine = same_point(report, row);
    if (mine == nullptr || !row.ran()) continue;
    for (const SetupField& field : setup_fields()) {
      if (!like_for_like_field(field)) continue;
      const std::string a = field.of_result(report, *mine), b = field.of_result(other, row);
      if (!a.empty() && !b.empty() && a != b)
        throw UsageError(fmt::format(
            "--backends-from {}: not like for like: {} differs (this report {}, it {}) at allreduce T={} {}; merge runs of the same setup, as k25comm compare would match them",
            other_path, field.name, a, b, row.requested_tokens, to_string(row.mode)));
    }
  }
  const std::string variant = variant_words(report, other, other_path);
  const std::set<std::string> taken = backend_names(report);
  std::set<std::string> named;
  for (PhaseResult& row : rows) {
    const std::string original = row.backend.empty() ? other.run.transport : row.backend;
    std::string name = original + " " + variant;
    for (int n = 2; taken.count(name) > 0; ++n) name = fmt::format("{} {} #{}", original, variant, n);
    row.backend = name;
    named.insert(name);
    report.backend_results.push_back(row);
  }
  std::string list;
  for (const std::string& name : named) list += (list.empty() ? "" : ", ") + name;
  add_note(report.run, fmt::format("AllReduce backends merged from {} (run started {}, {}): {}", other_path,
                                   other.run.started_at, report_label(other), list));
}

}  // namespace k25
