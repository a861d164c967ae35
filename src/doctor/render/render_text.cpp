// Headings, words and the verdict list.
#include "doctor/render/render_text.hpp"

#include <fmt/format.h>

namespace k25 {

std::string heading(int level, const std::string& title) {
  return std::string(static_cast<std::size_t>(level), '#') + " " + title + "\n\n";
}

std::string link_text(int gen, int width) {
  return gen > 0 || width > 0 ? fmt::format("Gen{} x{}", gen, width) : "?";
}

std::string dash(const std::string& text) {
  return text.empty() ? "-" : text;
}

std::string verdicts_markdown(const std::vector<NodeVerdict>& verdicts) {
  if (verdicts.empty()) return "No finding.\n\n";
  std::string md;
  for (const NodeVerdict& verdict : verdicts) {
    md += fmt::format(
        "- **{}** `{}`: {}: {}. Fix: {} ({})\n", to_string(verdict.severity), to_string(verdict.id),
        verdict.finding, verdict.cost, verdict.fix,
        verdict.url.empty() ? verdict.source : fmt::format("[{}]({})", verdict.source, verdict.url));
    for (const FactSource& source : verdict.evidence)
      md += fmt::format("  - evidence `{}`: `{}`\n", source.where(), source.text);
  }
  return md + "\n";
}

}  // namespace k25
