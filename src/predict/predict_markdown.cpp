// predict.md: the headlines, the model, one column per alternative, then each alternative's kinds.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "predict/predict_document.hpp"

namespace k25 {
namespace {

std::string unit_cell(double us, bool tpot) {
  return tpot ? fmt::format("{:.2f} ms", us / 1000) : fmt::format("{:.1f} us", us);
}

std::string base_kinds_cell(const BaseLevel& level) {
  std::vector<std::string> parts;
  for (const BaseKind& k : level.kinds)
    parts.push_back(fmt::format("{} {:g} x {:.0f} B{}: {:.1f} us", k.name, k.ops_per_step, k.bytes,
                                k.size_from_config ? " (size from the --model config)" : "", k.exposed_us()));
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::string estimate_cell(const LevelPrediction& l, const StepEstimate& s) {
  std::string cell =
      fmt::format("{}: exposed {:.1f} us, {} (p90 {})", to_string(s.method), s.exposed_us,
                  unit_cell(s.step_us, l.step_is_tpot), unit_cell(s.step_p90_us, l.step_is_tpot));
  if (const std::optional<double> tps = output_tokens_per_s(l, s))
    cell += fmt::format(", {:.1f} tok/s", *tps);
  return cell;
}

std::string alt_cell(const LevelPrediction& l) {
  if (!l.refused.empty()) return "refused";
  std::string cell = estimate_cell(l, l.low_estimate());
  if (l.is_range()) cell += " .. " + estimate_cell(l, l.high_estimate());
  if (!l.moved_most.empty()) cell += fmt::format("; moved: {}", fmt::join(l.moved_most, ", "));
  return cell;
}

void write_table(const PredictDocument& r, std::string& md) {
  md += "| batch | base step (measured) | base exposed communication |";
  for (const AltPrediction& a : r.alternatives) md += fmt::format(" {} (predicted) |", a.label);
  md += "\n|---|---|---|";
  for (std::size_t i = 0; i < r.alternatives.size(); ++i) md += "---|";
  md += "\n";
  for (std::size_t i = 0; i < r.base.levels.size(); ++i) {
    const BaseLevel& b = r.base.levels[i];
    md += fmt::format("| {} | {} | {} |", level_name(b.batch, b.step_is_tpot),
                      unit_cell(b.step_us, b.step_is_tpot), base_kinds_cell(b));
    for (const AltPrediction& a : r.alternatives) md += " " + alt_cell(a.levels[i]) + " |";
    md += "\n";
  }
}

void write_kinds(const LevelPrediction& l, std::string& md) {
  md += fmt::format("\n{} {}\n\n", level_name(l.batch, l.step_is_tpot), prediction_tag(l));
  if (!l.refused.empty()) return;
  md +=
      "| estimate | kind | method | bytes | ops/step | base comm us | hidden us | wait kept us/op | alt op us p50 (p90) | source | new exposed us |\n";
  md += "|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const StepEstimate& s : l.estimates)
    for (const KindEstimate& k : s.kinds)
      md += fmt::format("| {} | {} | {} | {:.0f} | {:g} | {:.1f} | {:.1f} | {} | {} | {} | {:.1f} |\n",
                        to_string(s.method), k.name, to_string(k.method), k.bytes, k.ops_per_step,
                        k.base_comm_us, k.hidden_us, k.wait_us ? fmt::format("{:.2f}", *k.wait_us) : "-",
                        k.alt_op_us ? fmt::format("{:.2f} ({:.2f})", *k.alt_op_us, *k.alt_op_p90_us) : "-",
                        to_string(k.source), k.new_exposed_us);
  for (const std::string& note : l.notes) md += "- " + note + "\n";
}

void write_alternative(const AltPrediction& a, std::string& md) {
  md += fmt::format("\n## {} ({}: {})\n\n", a.label, a.format, a.path);
  md += fmt::format("Op time: {}. Ranks: {}.\n\n", a.timing,
                    a.ranks > 0 ? std::to_string(a.ranks) : "not said");
  for (const std::string& m : a.mismatches) md += "- **mismatch**: " + m + "\n";
  for (const std::string& n : a.notes) md += "- " + n + "\n";
  for (const LevelPrediction& l : a.levels) write_kinds(l, md);
}

}  // namespace

const std::vector<std::string>& model_lines() {
  static const std::vector<std::string> lines{
      "Per step and collective kind: predicted step = base step - exposed communication + predicted exposed communication.",
      "Each op of the base is the ranks' wait for the last one to arrive plus the transfer after it (a capture: from the ranks' timestamps on one clock; a replay: its decode mode's op minus its back-to-back op); a faster link shortens the transfer, not the wait.",
      "The alternative's op at the base's size comes from its curve, on log-log axes between its measured sizes; outside them, or from a curve of one size, it is refused, or labelled extrapolated with --extrapolate.",
      "Additive: new op = wait + the alternative's op (a ring or tree cannot start before the last rank arrives). Overlapping: new op = the longer of the two (a one-shot push starts at each arrival). Where the alternative does not say which it is, both are given: the range.",
      "Back-to-back: new op = the alternative's op, the wait dropped, as a micro-benchmark or a per-op table predicts; the predicted figure only where the base has no join information, and said.",
      "Measured with the base's shape: where the alternative is a replay whose decode mode ran the base's gaps and skew, its communication per op is the new op, measured, not modelled.",
      "Communication that the base hid behind compute stays hidden until its new time exceeds the compute it ran beside: new exposed = max(0, new communication - hidden).",
      "The p90 beside each figure: the base's step at p90 with the alternative's op at p90 where the input has one.",
  };
  return lines;
}

std::string predict_markdown(const PredictDocument& r) {
  std::string md = "# k25comm predict\n\n";
  for (const AltPrediction& a : r.alternatives) md += "**" + a.headline + "**\n\n";
  md += fmt::format("Base: `{}` ({}), the step: {}; ranks: {}.\n\n", r.base.path, r.base.format,
                    r.base.step_what, r.base.ranks > 0 ? std::to_string(r.base.ranks) : "not said");
  for (const std::string& c : r.base.caveats) md += "- **caveat**: " + c + "\n";
  for (const std::string& n : r.base.notes) md += "- " + n + "\n";
  md += "\nPredicted, not measured: each figure below comes from the model that follows.\n\n";
  write_table(r, md);
  md += fmt::format("\n{}.\n\n## How it was predicted\n\n", kThroughputAssumption);
  for (const std::string& line : model_lines()) md += "- " + line + "\n";
  for (const AltPrediction& a : r.alternatives) write_alternative(a, md);
  return md;
}

}  // namespace k25
