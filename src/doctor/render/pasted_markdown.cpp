// The sections only pasted inputs fill: sources that disagree, NCCL's communicators and connections by rank,
// the bandwidth tests, DCGM, and the inputs read.
#include <map>

#include <fmt/format.h>

#include "common/column_table.hpp"
#include "doctor/render/render_text.hpp"

namespace k25 {
namespace {

constexpr std::size_t kMostConnectionRows = 64;

std::string figure(double gbps) {
  return gbps < 0 ? "-" : fmt::format("{:.1f}", gbps);
}

std::string gpu_name(int gpu) {
  return gpu < 0 ? "?" : std::to_string(gpu);
}

}  // namespace

std::string disagreements_markdown(const NodeModel& model, int level) {
  if (model.disagreements.empty()) return {};
  std::string md = heading(level, "Sources that disagree");
  for (const Disagreement& disagreement : model.disagreements) {
    std::vector<std::string> said;
    for (const Observation& observation : disagreement.said)
      said.push_back(fmt::format("{} (`{}`: `{}`)", observation.value, observation.source.where(),
                                 observation.source.text));
    md += fmt::format("- {}, {}: {}\n", disagreement.subject, to_string(disagreement.kind),
                      fmt::join(said, " | "));
  }
  return md + "\n";
}

std::string nccl_log_markdown(const NodeModel& model) {
  const NcclSeen& nccl = model.nccl;
  std::string md;
  for (const NcclCommunicator& communicator : nccl.communicators) {
    std::vector<std::string> ranks;
    for (const NcclRankGpu& rank : communicator.ranks)
      ranks.push_back(fmt::format(
          "{}: {}{}", rank.rank, rank.bus_id.empty() ? fmt::format("cudaDev {}", rank.cuda_dev) : rank.bus_id,
          rank.host.empty() ? "" : " on " + rank.host));
    md += fmt::format(
        "- communicator `{}`: {} ranks{}, {} ring lines, {} tree lines; ranks seen {}\n", communicator.key,
        communicator.nranks, communicator.complete ? "" : " (init not completed)", communicator.rings,
        communicator.trees, ranks.empty() ? std::string("none") : fmt::format("{}", fmt::join(ranks, ", ")));
  }
  for (const NcclSharedMemory& error : nccl.shared_memory)
    md += fmt::format("- ncclMaxSharedMem {} exceeds {} (`{}`)\n", error.needed, error.available,
                      error.source.where());
  for (const FactSource& warning : nccl.warnings)
    md += fmt::format("- WARN `{}`: `{}`\n", warning.where(), warning.text);
  if (!md.empty()) md += "\n";
  if (nccl.connections.empty()) return md;
  using C = const NcclRankConnection&;
  const Columns<NcclRankConnection> columns = {
      {"communicator", "", [](C c) { return TableCell(c.communicator); }},
      {"ranks", "", [](C c) { return TableCell(fmt::format("{} -> {}", c.from_rank, c.to_rank)); }},
      {"GPUs", "",
       [](C c) { return TableCell(c.gpu_a < 0 ? "-" : fmt::format("{} -> {}", c.gpu_a, c.gpu_b)); }},
      {"matched by", "", [](C c) { return TableCell(dash(c.matched_by)); }},
      {"transport", "", [](C c) { return TableCell(c.transport.name); }},
      {"channels", "", [](C c) { return TableCell(std::to_string(c.channels)); }},
      {"first line", "", [](C c) { return TableCell(c.source.where()); }},
  };
  std::vector<const NcclRankConnection*> rows;
  for (std::size_t i = 0; i < nccl.connections.size() && i < kMostConnectionRows; ++i)
    rows.push_back(&nccl.connections[i]);
  md += "<details><summary>NCCL's connections by communicator and rank</summary>\n\n" +
        markdown_table(columns, rows, TableLayout::text) +
        (nccl.connections.size() > rows.size()
             ? fmt::format("\n... and {} more\n", nccl.connections.size() - rows.size())
             : "") +
        "\n</details>\n\n";
  return md;
}

std::string bandwidth_markdown(const NodeModel& model, int level) {
  if (model.bandwidth.empty()) return {};
  using B = const PairBandwidth&;
  const Columns<PairBandwidth> columns = {
      {"from -> to", "",
       [](B b) { return TableCell(fmt::format("{} -> {}", gpu_name(b.src), gpu_name(b.dst))); }},
      {"P2P enabled", "GB/s", [](B b) { return TableCell(figure(b.p2p_enabled_gbps)); }},
      {"P2P disabled", "GB/s", [](B b) { return TableCell(figure(b.p2p_disabled_gbps)); }},
      {"bidirectional enabled", "GB/s", [](B b) { return TableCell(figure(b.bidirectional_enabled_gbps)); }},
      {"bidirectional disabled", "GB/s",
       [](B b) { return TableCell(figure(b.bidirectional_disabled_gbps)); }},
      {"tool", "", [](B b) { return TableCell(b.tool); }},
  };
  return heading(level, "Bandwidth tests pasted") +
         markdown_table(columns, row_pointers(model.bandwidth), TableLayout::text) + "\n";
}

std::string dcgm_markdown(const NodeModel& model, int level) {
  if (model.dcgm.empty()) return {};
  std::string md = heading(level, "DCGM diagnostics");
  for (const DcgmResult& result : model.dcgm)
    md +=
        fmt::format("- {} on {}: **{}**{} (`{}`)\n", result.test,
                    result.gpu < 0 ? std::string("all GPUs") : fmt::format("GPU {}", result.gpu),
                    result.status, result.detail.empty() ? "" : ": " + result.detail, result.source.where());
  return md + "\n";
}

std::string inputs_markdown(const std::vector<InputRead>& inputs, int level) {
  if (inputs.empty()) return {};
  std::string md = heading(level, "Inputs");
  for (const InputRead& input : inputs) {
    if (!input.left_out.empty()) {
      md += fmt::format("- `{}`: left out: {}\n", input.file, input.left_out);
      continue;
    }
    md += fmt::format("- `{}`:\n", input.file);
    for (const FamilyRead& family : input.families)
      md += fmt::format("  - {}: {}\n", family.family, family.added);
  }
  return md + "\n";
}

}  // namespace k25
