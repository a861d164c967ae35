// JSON form of the whole report document.
#include "analysis/run_report.hpp"

#include <stdexcept>
#include <string>

#include "analysis/report_notes.hpp"
#include "common/json_integer.hpp"
#include "common/json_list.hpp"

namespace k25 {

void add_note(RunInfo& run, const std::string& note) {
  for (const std::string& existing : run.notes)
    if (existing == note) return;
  run.notes.push_back(note);
}

void file_result(RunReport& report, PhaseResult result) {
  if (result.backend.empty()) result.backend = report.run.transport;
  if (result.backend == report.run.transport)
    report.results.push_back(std::move(result));
  else
    report.backend_results.push_back(std::move(result));
}

void to_json(nlohmann::json& j, const ToolInfo& t) {
  j = nlohmann::json{{"name", t.name}, {"version", t.version}, {"git_sha", t.git_sha}};
}

void from_json(const nlohmann::json& j, ToolInfo& t) {
  t.name = j.value("name", "k25comm");
  t.version = j.value("version", "");
  t.git_sha = j.value("git_sha", "");
}

void to_json(nlohmann::json& j, const RunInfo& r) {
  j = nlohmann::json{{"started_at", r.started_at},
                     {"finished_at", r.finished_at},
                     {"ranks", r.ranks},
                     {"hosts", r.hosts},
                     {"transport", r.transport},
                     {"transport_reason", r.transport_reason},
                     {"clock", r.clock},
                     {"config_path", r.config_path},
                     {"config", r.config},
                     {"command_line", r.command_line},
                     {"env", r.env},
                     {"mpi_version", r.mpi_version},
                     {"compiler", r.compiler},
                     {"complete", r.complete},
                     {"notes", r.notes},
                     {"derived_notes", r.derived_notes},
                     {"host_cores", r.host_cores}};
  if (!r.incomplete_reason.empty()) j["incomplete_reason"] = r.incomplete_reason;
}

void from_json(const nlohmann::json& j, RunInfo& r) {
  r.started_at = j.value("started_at", "");
  r.finished_at = j.value("finished_at", "");
  r.ranks = json_integer_or(j, "ranks", 0, 0);
  r.hosts = j.value("hosts", std::vector<std::string>{});
  r.transport = j.value("transport", "");
  r.transport_reason = j.value("transport_reason", "");
  r.clock = j.value("clock", "");
  r.config_path = j.value("config_path", "");
  r.config = j.value("config", nlohmann::json::object());
  r.command_line = j.value("command_line", "");
  r.env = j.value("env", std::map<std::string, std::string>{});
  r.mpi_version = j.value("mpi_version", "");
  r.compiler = j.value("compiler", "");
  r.complete = j.value("complete", true);
  r.incomplete_reason = j.value("incomplete_reason", "");
  r.notes = j.value("notes", std::vector<std::string>{});
  r.derived_notes = derived_notes_of(j, r.notes);
  r.host_cores = json_integer_map<int>(j.value("host_cores", nlohmann::json()), "host_cores");
}

namespace {

// The transport's own rows as report.json writes them: each names its backend, the transport's.
std::vector<PhaseResult> results_with_backend(const RunReport& r) {
  std::vector<PhaseResult> results = r.results;
  for (PhaseResult& result : results)
    if (result.backend.empty()) result.backend = r.run.transport;
  return results;
}

}  // namespace

void to_json(nlohmann::json& j, const RunReport& r) {
  j = nlohmann::json{{"schema_version", r.schema_version},
                     {"tool", r.tool},
                     {"run", r.run},
                     {"topology", r.topology},
                     {"results", results_with_backend(r)},
                     {"serve", r.serve},
                     {"headline", r.headline},
                     {"attribution", r.attribution},
                     {"fits", r.fits}};
  if (r.live_profile.present) j["live_profile"] = r.live_profile;
  if (!r.backend_results.empty()) j["backend_results"] = r.backend_results;
  if (r.backends.present()) j["allreduce_backends"] = r.backends;
}

void from_json(const nlohmann::json& j, RunReport& r) {
  r.schema_version = json_integer_at<int>(j, "schema_version");
  r.tool = j.value("tool", ToolInfo{});
  r.run = j.value("run", RunInfo{});
  r.topology = j.value("topology", TopologyInfo{});
  r.results.clear();
  r.backend_results.clear();
  for (auto list : {"results", "backend_results"})
    for (PhaseResult& result : json_list_or_empty<PhaseResult>(j, list)) file_result(r, std::move(result));
  try {
    r.serve = j.value("serve", ServeReport{});
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("serve.") + e.what());
  }
  if (j.contains("live_profile")) r.live_profile = j.at("live_profile").get<LiveProfile>();
  // attribution and fits are derived data: analyze_report recomputes them from results and serve.
  r.headline = j.value("headline", std::vector<std::string>{});
}

}  // namespace k25
