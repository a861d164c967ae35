// doctor.md, the console text and the compare text.
#include "doctor/render/doctor_markdown.hpp"

#include <fmt/format.h>

#include "common/column_table.hpp"
#include "doctor/render/node_markdown.hpp"
#include "doctor/render/render_text.hpp"

namespace k25 {
namespace {

constexpr const char* kBackendsNotGiven =
    "Not given: `--capture capture.json` (a `k25comm capture` of the engine's trace) names the backend that ran per collective kind and size.\n\n";

std::string backends_table(const BackendsSeen& seen) {
  using R = const BackendRun&;
  const Columns<BackendRun> columns = {
      {"kind", "", [](R r) { return TableCell(r.kind); }},
      {"bytes", "", [](R r) { return TableCell(r.bytes ? std::to_string(*r.bytes) : "?"); }},
      {"backend", "", [](R r) { return TableCell(r.backend); }, kEveryOutput, 0, Align::left},
      {"count", "", [](R r) { return TableCell::count(static_cast<double>(r.count)); }},
      {"op", "us",
       [](R r) { return TableCell::figure(r.op_us, r.op_us ? fmt::format("{:.1f}", *r.op_us) : "-"); }},
  };
  return markdown_table(columns, row_pointers(seen.runs)) + "\n";
}

}  // namespace

std::string doctor_markdown(const DoctorDocument& document) {
  const NodeFacts& facts = document.model.facts;
  std::string md = fmt::format("# k25comm doctor: {}\n\n", !facts.host.empty()        ? facts.host
                                                           : document.model.this_host ? "this host"
                                                                                      : "the inputs' node");
  md += fmt::format("**{}**\n\n", document.headline);
  md += fmt::format("k25comm {} ({}), {}; `{}`; {}.\n\n", document.tool_version, document.git_sha,
                    document.created_at, document.command_line,
                    document.model.this_host
                        ? fmt::format("this host's sysfs read under `{}`", facts.root)
                        : fmt::format("the node of the inputs ({}), this host's sysfs not read",
                                      dash(document.model.host_from)));
  md += inputs_markdown(document.inputs, 2);
  md += node_markdown(document.model, document.verdicts, 2);
  md += heading(2, "All-reduce backends that ran");
  if (document.backends.file.empty()) {
    md += kBackendsNotGiven;
  } else {
    md += fmt::format("From `{}`: {}.\n\n", document.backends.file, document.backends.status);
    if (!document.backends.runs.empty()) md += backends_table(document.backends);
    for (const std::string& note : document.backends.notes) md += "- " + note + "\n";
    md += "\n";
  }
  return md + unseen_markdown(facts, 2);
}

std::string doctor_console(const DoctorDocument& document) {
  const NodeFacts& facts = document.model.facts;
  std::string text = "# doctor: " + document.headline + "\n";
  for (const NodeVerdict& verdict : document.verdicts) {
    text += verdict.line() + "\n";
    for (const FactSource& source : verdict.evidence)
      text += fmt::format("  evidence {}: {}\n", source.where(), source.text);
  }
  for (const InputRead& input : document.inputs) {
    if (!input.left_out.empty()) {
      text += fmt::format("input {}: left out: {}\n", input.file, input.left_out);
      continue;
    }
    for (const FamilyRead& family : input.families)
      text += fmt::format("input {}: {}: {}\n", input.file, family.family, family.added);
  }
  if (facts.gpus.size() > 1) text += "paths:\n" + path_matrix_text(facts, false);
  text += fmt::format("IOMMU: {} ({})\n", facts.iommu.mode, facts.iommu.evidence);
  if (facts.p2p.status != "not run") text += measured_text(facts.p2p, false);
  for (const Disagreement& disagreement : document.model.disagreements) {
    std::vector<std::string> said;
    for (const Observation& observation : disagreement.said)
      said.push_back(fmt::format("{} ({})", observation.value, observation.source.where()));
    text += fmt::format("sources disagree: {}, {}: {}\n", disagreement.subject, to_string(disagreement.kind),
                        fmt::join(said, " | "));
  }
  if (facts.nccl.topology_file.empty() && facts.nccl.log_files.empty())
    text += "NCCL's view: not given (--from with NCCL's INFO log or topology dump)\n";
  if (document.backends.file.empty())
    text += "backends that ran: not given (--capture)\n";
  else
    text += fmt::format("backends that ran: {} rows from {} ({})\n", document.backends.runs.size(),
                        document.backends.file, document.backends.status);
  for (const std::string& sentence : facts.unseen) text += "not seen: " + sentence + "\n";
  for (const std::string& note : facts.nccl.notes) text += "note: " + note + "\n";
  return text;
}

std::string node_compare_text(const DoctorDocument& a, const DoctorDocument& b,
                              const std::vector<NodeDifference>& differences) {
  std::string text = fmt::format("A: {} ({})\nB: {} ({})\n", a.headline, a.source, b.headline, b.source);
  if (differences.empty()) return text + "no difference\n";
  text += fmt::format("{} difference{} (A | B):\n", differences.size(), differences.size() == 1 ? "" : "s");
  for (const NodeDifference& difference : differences) text += difference.line() + "\n";
  return text;
}

}  // namespace k25
