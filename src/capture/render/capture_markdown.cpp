// Rendering of capture.md from a CaptureResult.
#include "capture/render/capture_markdown.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "capture/render/markdown_text.hpp"
#include "capture/render/trace_headline.hpp"
#include "capture/render/trace_markdown.hpp"

namespace k25 {

const std::vector<std::pair<std::string, std::string>>& capture_plot_files() {
  static const std::vector<std::pair<std::string, std::string>> kPlots = {
      {"capture_exec_time.png",
       "Execution time of each collective in sequence order, per kind (largest communicator)"},
      {"capture_step_composition.png", "Communication of one decode step by kind, per step size"},
      {"capture_step_classes.png", "Where a trace's decode step goes, by kernel class, per batch size"},
      {"capture_trace_vs_replay.png", "Captured per-op time next to the replay's, per size"},
  };
  return kPlots;
}

namespace {

constexpr std::size_t kMaxSizeRows = 60;

std::string escaped(const std::string& text) {
  return markdown_cell(text);
}

// Microseconds: whole-us Inspector figures keep one decimal; sub-10-us replay figures get more.
std::string us(double value) {
  if (!std::isfinite(value)) return "-";
  const double magnitude = std::fabs(value);
  if (magnitude >= 10 || magnitude == 0) return fmt::format("{:.1f}", value);
  return magnitude >= 1 ? fmt::format("{:.2f}", value) : fmt::format("{:.3f}", value);
}
std::string tokens_text(const std::optional<int>& tokens) {
  return tokens ? std::to_string(*tokens) : "-";
}

std::string title_of(const CommunicatorResult& c) {
  return c.name.empty() || c.name == "unknown" ? escaped(c.id)
                                               : fmt::format("{} ({})", escaped(c.name), escaped(c.id));
}

}  // namespace

std::string decode_steps_word(const StepSummary& s) {
  return s.decode_steps > 0 && s.phase_unknown_steps == s.decode_steps ? "steps (phase unknown)"
                                                                       : "decode steps";
}

namespace {

// What the steps counted with decode are, in the singular: "decode step", "step" where none has a phase (a
// training step, a step the timeline cut), "decode or unknown-phase step" where both are among them.
std::string decode_step_word(const StepSummary& s) {
  if (s.phase_unknown_steps == 0) return "decode step";
  return s.phase_unknown_steps == s.decode_steps ? "step" : "decode or unknown-phase step";
}

// How the steps were cut: by the op that closes each, by --model's AllReduces per step, or as the trace's
// timeline gave them.
std::string step_cut_text(const StepSummary& s) {
  if (!s.anchor.empty()) return fmt::format(", each closed by its {}", s.anchor);
  if (s.method == "model_allreduces_per_step") return ", cut by the model's AllReduces per step";
  if (s.method == "engine_marks") return ", as the trace's step marks cut them";
  if (s.method.empty()) return "";
  return fmt::format(", as the trace's timeline cut them ({})", s.method);
}

// "8 ranks on 2 node(s)"; "8 ranks" where the records do not say the nodes.
std::string ranks_on_nodes(int n_ranks, std::uint64_t nnodes) {
  return nnodes > 0 ? fmt::format("{} ranks on {} node(s)", n_ranks, nnodes)
                    : fmt::format("{} ranks", n_ranks);
}

// A size in bytes; "unknown" where the records have none.
std::string bytes_text(std::uint64_t bytes) {
  return bytes > 0 ? std::to_string(bytes) : "unknown";
}

void render_step(std::string& md, const StepSummary& s) {
  if (!s.found) {
    md += fmt::format("**Decode step:** not found: {}.\n\n", s.reason);
    return;
  }
  // "Decode step" only where some step is decode by its mark, its batch or its size.
  md += fmt::format("**{}:** {} ({} ops{}).", s.decode_steps > s.phase_unknown_steps ? "Decode step" : "Step",
                    s.pattern_text, s.ops_per_step, step_cut_text(s));
  if (s.matches_model)
    md +=
        fmt::format(" The model config gives {} AllReduces per step ({}): {}.", *s.model_allreduces_per_step,
                    s.model_rule, *s.matches_model ? "the same" : "**different**");
  md += fmt::format(
      "\n\n{} {} and {} prefill steps (prefill: above {} bytes per {}, {}); {} steps with a rank missing from some op; {} segments of another shape, {} broken by missing records, {} ops outside steps.\n\n",
      s.decode_steps, decode_steps_word(s), s.prefill_steps, s.prefill_above_bytes, s.size_kind,
      s.prefill_rule, s.partial_steps, s.other_segments, s.incomplete_segments, s.ops_outside_steps);
  if (s.decode_comm_us)
    md += fmt::format(
        "Communication of one {} (sum of its ops, each the slowest rank's): p50 {} us, p90 {} us, max {} us.\n\n",
        decode_step_word(s), us(s.decode_comm_us->p50), us(s.decode_comm_us->p90), us(s.decode_comm_us->max));
  if (!s.other_shapes.empty()) {
    md += "Other segment shapes: ";
    for (std::size_t i = 0; i < s.other_shapes.size(); ++i)
      md += fmt::format("{}{} ({}x)", i ? "; " : "", s.other_shapes[i].first, s.other_shapes[i].second);
    md += ".\n\n";
  }
  md += "| phase | tokens | bytes per op | steps | comm p50 (us) | p90 | max | " + s.size_kind +
        " per step | its p50 (us) |\n";
  md += "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const StepSizeGroup& g : s.by_size)
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", g.phase, tokens_text(g.tokens),
                      bytes_text(g.bytes), g.steps, us(g.comm_us.p50), us(g.comm_us.p90), us(g.comm_us.max),
                      g.size_kind_ops, us(g.size_kind_us.p50));
  md += "\n";
  if (!s.composition.empty()) {
    md += fmt::format("| kind | ops per {} | us per step p50 | share of {} comm |\n|---|---:|---:|---:|\n",
                      decode_step_word(s), s.phase_unknown_steps == 0 ? "decode" : "the steps'");
    for (const KindShare& k : s.composition)
      md += fmt::format("| {} | {} | {} | {} |\n", k.kind, k.ops_per_step, us(k.us_per_step.p50),
                        percent(k.share));
    md += "\n";
  }
}

void render_communicator(std::string& md, const CommunicatorResult& c) {
  md += fmt::format("## Communicator {}\n\n", title_of(c));
  md += fmt::format(
      "{}; records from rank(s) {}{}; format {}. {} collective and {} P2P records; "
      "{} collectives joined over ranks ({} missing some rank), sequence from rank {} ({}).\n\n",
      ranks_on_nodes(c.n_ranks, c.nnodes), fmt::join(c.ranks, ", "),
      c.missing_ranks.empty()
          ? ""
          : fmt::format(" (**missing {}: {}{}**)", c.missing_rank_count, fmt::join(c.missing_ranks, ", "),
                        c.missing_rank_count > static_cast<int>(c.missing_ranks.size()) ? ", ..." : ""),
      fmt::join(c.format_versions, ", "), c.coll_records, c.p2p_records, c.joined_ops, c.partial_ops,
      c.reference_rank,
      c.sequence_order == "verbose_timestamps" ? "ordered by verbose timestamps" : "in the file's order");
  const SamplingSummary& s = c.sampling;
  md += fmt::format("**Records:** {} ({} of {} sequence numbers, {}): {}.\n\n", s.verdict, s.recorded_ops,
                    s.expected_ops, percent(s.coverage), s.explanation);
  render_step(md, c.step);

  if (!c.by_size.empty()) {
    md +=
        "| kind | bytes | tokens | phase | count | exec p50 (us) | p90 | p99 | max | busbw p50 (GB/s) | slowest rank | partial |\n";
    md += "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---|---:|\n";
    for (std::size_t i = 0; i < c.by_size.size() && i < kMaxSizeRows; ++i) {
      const SizeGroup& g = c.by_size[i];
      md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} ({}) | {} |\n",
                        escaped(g.kind), bytes_text(g.bytes), tokens_text(g.tokens), g.phase, g.count,
                        us(g.exec_us.p50), us(g.exec_us.p90), us(g.exec_us.p99), us(g.exec_us.max),
                        g.busbw_gbps ? fmt::format("{:.2f}", g.busbw_gbps->p50) : "-", g.slowest_rank,
                        percent(g.slowest_rank_share), g.partial);
    }
    if (c.by_size.size() > kMaxSizeRows)
      md += fmt::format("\n{} more sizes in capture.json.\n", c.by_size.size() - kMaxSizeRows);
    md += "\n";
  }
  if (!c.p2p.empty()) {
    md +=
        "| P2P | records | bytes p50 | total bytes | exec p50 (us) | p90 | busbw p50 (GB/s) | ranks | peers |\n";
    md += "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const P2pGroup& g : c.p2p)
      md += fmt::format("| {} | {} | {:.0f} | {} | {} | {} | {} | {} | {} |\n", escaped(g.kind), g.records,
                        g.bytes.p50, g.total_bytes, us(g.exec_us.p50), us(g.exec_us.p90),
                        g.busbw_gbps ? fmt::format("{:.2f}", g.busbw_gbps->p50) : "-", g.ranks, g.peers);
    md += "\n";
  }
}

void render_replay(std::string& md, const ReplayComparison& r) {
  md += fmt::format("## Captured vs replayed ({})\n\n", escaped(r.path));
  md += fmt::format(
      "Replay: {} ranks, transport {}, model {}. "
      "Ratio = captured p50 / replay p50 at the same bytes per op (above 1: the server's op took longer than the replay's).\n\n",
      r.ranks, r.transport.empty() ? "-" : r.transport, r.model.empty() ? "-" : r.model);
  std::vector<std::string> modes;
  for (const ReplayOpRow& row : r.ops)
    for (const ReplayMatch& m : row.replay)
      if (std::find(modes.begin(), modes.end(), m.mode) == modes.end()) modes.push_back(m.mode);
  md += "| communicator | kind | bytes | tokens | phase | mode | count | captured p50 (us) |";
  for (const std::string& mode : modes) md += fmt::format(" replay {} p50 | ratio |", mode);
  md += "\n|---|---|---:|---:|---|---|---:|---:|";
  for (std::size_t i = 0; i < modes.size(); ++i) md += "---:|---:|";
  md += "\n";
  for (const ReplayOpRow& row : r.ops) {
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |", escaped(row.comm), row.kind,
                      row.bytes == 0 ? std::string("unknown") : std::to_string(row.bytes),
                      tokens_text(row.tokens), row.phase, row.mode.empty() ? "-" : row.mode, row.count,
                      us(row.captured_us_p50));
    for (const std::string& mode : modes) {
      const auto m = std::find_if(row.replay.begin(), row.replay.end(),
                                  [&](const ReplayMatch& x) { return x.mode == mode; });
      md += m == row.replay.end() ? " not measured | - |"
                                  : fmt::format(" {} | {:.2f} |", us(m->op_us_p50), m->ratio);
    }
    md += "\n";
  }
  md += "\n";
  if (!r.steps.empty()) {
    md +=
        "| communicator | tokens | decode steps | AllReduces per step | captured AllReduce us p50 | captured step us p50 | replay |\n|---|---:|---:|---:|---:|---:|---|\n";
    for (const ReplayStepRow& row : r.steps) {
      std::string replay;
      for (const ReplayStepMatch& m : row.replay)
        replay += fmt::format("{}{}: {} ops, {} us, per-op ratio {:.2f}", replay.empty() ? "" : "; ", m.mode,
                              m.ops_per_step, us(m.step_us_p50), m.per_op_ratio);
      md += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", escaped(row.comm), row.tokens, row.steps,
                        row.allreduces_per_step, us(row.captured_allreduce_us_p50),
                        us(row.captured_step_us_p50), replay.empty() ? "not measured" : replay);
    }
    md += "\n";
  }
  if (!r.shares.empty()) {
    md +=
        "The trace's decode steps next to the replay's attribution at the same tokens (share = communication / the trace's step wall time; the replay's share is of TPOT):\n\n| batch | trace steps | trace wall p50 (ms) | trace comm p50 (ms) | trace share | exposed share | replay |\n|---:|---:|---:|---:|---:|---:|---|\n";
    for (const ReplayShareRow& row : r.shares) {
      std::string replay;
      for (const ReplayShareMatch& m : row.replay)
        replay += fmt::format("{}C={} {}: {:.3f} ms of TPOT {:.2f} ms ({})", replay.empty() ? "" : "; ",
                              m.concurrency, m.key, m.comm_ms, m.tpot_ms, percent(m.share));
      md += fmt::format("| {} | {} | {:.3f} | {:.3f} | {} | {} | {} |\n", row.batch, row.steps,
                        row.trace_wall_ms, row.trace_comm_ms, percent(row.trace_share),
                        percent(row.trace_exposed_share),
                        replay.empty() ? "no attribution row at these tokens" : replay);
    }
    md += "\n";
  }
  for (const std::string& note : r.notes) md += "- " + escaped(note) + "\n";
  if (!r.notes.empty()) md += "\n";
}

void render_attribution(std::string& md, const std::vector<LiveAttributionRow>& rows) {
  md +=
      "## Live attribution\n\nCaptured communication of one decode step (p50 over the captured steps) as a share of TPOT, next to the replay's AllReduce step at the same tokens.\n\n";
  md +=
      "| concurrency | TPOT (ms) | from | tokens | captured steps | captured comm (ms) | share | trace step wall (ms) | trace comm (ms) | its share of TPOT | replay |\n";
  md += "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const LiveAttributionRow& row : rows) {
    std::string replay;
    for (const LiveAttributionReplay& r : row.replay)
      replay += fmt::format("{}{}: {:.3f} ms ({})", replay.empty() ? "" : "; ", r.mode, r.comm_ms,
                            percent(r.share));
    const auto ms_cell = [](const std::optional<double>& v) {
      return v ? fmt::format("{:.3f}", *v) : std::string("-");
    };
    md +=
        fmt::format("| {} | {:.3f} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                    row.concurrency ? std::to_string(*row.concurrency) : "-", row.tpot_ms, row.tpot_source,
                    tokens_text(row.tokens), row.captured_steps,
                    row.captured_comm_ms ? fmt::format("{:.3f}", *row.captured_comm_ms) : row.captured_reason,
                    row.captured_share ? percent(*row.captured_share) : "-", ms_cell(row.trace_step_ms),
                    ms_cell(row.trace_comm_ms), row.trace_share ? percent(*row.trace_share) : "-",
                    replay.empty() ? "-" : replay);
  }
  md += "\n";
}

}  // namespace

std::string render_capture_markdown(const CaptureResult& capture, const std::vector<std::string>& plots) {
  std::string md = "# k25comm capture\n\n";
  if (capture.trace.present) {
    for (const std::string& line : trace_headline(capture.trace, 6)) md += "- **" + escaped(line) + "**\n";
    md += "\n";
  }
  std::uint64_t coll = 0, p2p = 0;
  std::set<std::string> versions, formats;
  bool inspector = false;
  for (const InputFile& f : capture.inputs) {
    coll += f.coll_records;
    p2p += f.p2p_records;
    versions.insert(f.format_versions.begin(), f.format_versions.end());
    formats.insert(format_title(f.format));
    inspector = inspector || f.format == InputFormat::inspector;
  }
  md += fmt::format(
      "{} file(s) ({}), {} collective and {} P2P records{}; {} communicator(s). "
      "Written by k25comm {} ({}) at {}.{}\n\n",
      capture.inputs.size(), fmt::join(formats, ", "), coll, p2p,
      versions.empty() ? "" : fmt::format(", Inspector format {}", fmt::join(versions, ", ")),
      capture.communicators.size(), capture.tool.version, capture.tool.git_sha, capture.created_at,
      capture.model ? fmt::format(" Model {}: {} bytes per token per AllReduce, {} AllReduces per step ({}).",
                                  escaped(capture.model->name), capture.model->bytes_per_token(),
                                  capture.model->allreduces_per_step, capture.model->allreduces_rule)
                    : " No --model: sizes are not turned into tokens.");
  if (inspector)
    md +=
        "Times of the Inspector's records are its coll_exec_time_us (GPU kernel time, whole microseconds); "
        "an op's time is the slowest rank's, a step's communication the sum of its ops'.\n\n";
  if (capture.trace.present)
    md +=
        "Times of a trace's collectives are their kernels' durations; communicator `trace` holds them, joined over ranks like the Inspector's records.\n\n";
  if (!capture.notes.empty()) {
    md += "## Notes\n\n";
    for (const std::string& note : capture.notes) md += "- " + escaped(note) + "\n";
    md += "\n";
  }
  if (capture.trace.present) render_trace_markdown(md, capture.trace);
  for (const CommunicatorResult& c : capture.communicators) render_communicator(md, c);
  if (capture.replay) render_replay(md, *capture.replay);
  if (!capture.attribution.empty()) render_attribution(md, capture.attribution);
  if (capture.emit_config.requested)
    md += fmt::format("## Config\n\n--emit-config {}: {}.\n\n", escaped(capture.emit_config.path),
                      capture.emit_config.written ? "written" : "not written: " + capture.emit_config.reason);
  if (!plots.empty()) {
    md += "## Plots\n\n";
    for (const auto& [file, title] : capture_plot_files())
      if (std::find(plots.begin(), plots.end(), file) != plots.end())
        md += fmt::format("![{}]({})\n\n", title, file);
  }
  md += "Per-op rows in sequence order: capture-ops.csv.\n";
  return md;
}

}  // namespace k25
