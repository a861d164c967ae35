// Formats result rows (bytes, tokens, time per op and per step, algbw, busbw, wrong) as fixed-width columns.
#include "report/console_table.hpp"

#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

#include "common/column_table.hpp"
#include "report/serve_columns.hpp"
#include "serve/level_metrics.hpp"

namespace k25 {

namespace {

// "4", or "3->4" where graph mode padded the 3 tokens asked to the capture size 4.
std::string tokens_cell(const PhaseResult& r) {
  if (r.requested_tokens == r.tokens || r.requested_tokens <= 0) return std::to_string(r.tokens);
  return fmt::format("{}->{}", r.requested_tokens, r.tokens);
}

// "allreduce", or a peer AllReduce backend's name on its rows (--allreduce-backends).
std::string phase_cell(const PhaseResult& r) {
  const auto backend = enum_from_name<AllreduceBackend>(r.backend);
  if (r.phase == Phase::allreduce && backend && *backend != AllreduceBackend::nccl &&
      *backend != AllreduceBackend::mpi)
    return r.backend;
  return to_string(r.phase);
}

// The results table as nccl-tests users read it: one row per point, as it is measured.
const Columns<PhaseResult>& result_columns() {
  using R = const PhaseResult&;
  static const Columns<PhaseResult> kColumns = {
      {"phase", "", [](R r) { return TableCell(phase_cell(r)); }, kConsoleOutput, 13},
      {"tokens", "", [](R r) { return TableCell(tokens_cell(r)); }, kConsoleOutput, 8},
      {"bytes", "per op",
       [](R r) {
         return TableCell::number(
             r.per_rank_bytes() ? r.bytes_per_rank_mean : static_cast<double>(r.bytes_per_op), 0);
       },
       kConsoleOutput, 11},
      {"ops", "", [](R r) { return TableCell::count(r.ops_per_step); }, kConsoleOutput, 4},
      {"mode", "", [](R r) { return TableCell(to_string(r.mode)); }, kConsoleOutput, 6},
      {"trials", "", [](R r) { return TableCell::count(r.iterations); }, kConsoleOutput, 7},
      {"op p50", "us", [](R r) { return TableCell::number(r.op_us.p50, 2); }, kConsoleOutput, 10},
      {"op p90", "us", [](R r) { return TableCell::number(r.op_us.p90, 2); }, kConsoleOutput, 10},
      {"step p50", "us", [](R r) { return TableCell::number(r.step_us.p50, 1); }, kConsoleOutput, 11},
      {"step p90", "us", [](R r) { return TableCell::number(r.step_us.p90, 1); }, kConsoleOutput, 11},
      {"algbw", "GB/s", [](R r) { return TableCell::number(r.algbw_gbps, 2); }, kConsoleOutput, 8},
      {"busbw", "GB/s", [](R r) { return TableCell::number(r.busbw_gbps, 2); }, kConsoleOutput, 8},
      {"wrong", "",
       [](R r) { return r.checked ? TableCell::count(static_cast<double>(r.wrong)) : TableCell("-"); },
       kConsoleOutput, 6},
      {"slowest", "rank", [](R r) { return TableCell::count(r.slowest_rank); }, kConsoleOutput, 7},
  };
  return kColumns;
}

}  // namespace

void ConsoleTable::print_header(bool graph_padding) const {
  fmt::print(out_, "#\n{}", console_heading(result_columns(), console_widths(result_columns())));
  fmt::print(
      out_,
      "# tokens: per decode step for allreduce, allgather and reducescatter, per rank for dispatch and combine{}\n",
      graph_padding
          ? "; 3->4: 3 asked, measured at the CUDA-graph capture size 4 (graph mode pads, as vLLM does)"
          : "");
  std::fflush(out_);
}

void ConsoleTable::print_row(const PhaseResult& r) const {
  fmt::print(out_, "{}", console_row(result_columns(), console_widths(result_columns()), r));
  std::fflush(out_);
}

void ConsoleTable::print_note(const std::string& text) const {
  fmt::print(out_, "# {}\n", text);
  std::fflush(out_);
}

ProgressLine::ProgressLine() {
  if (::isatty(STDOUT_FILENO) == 1 && ::isatty(STDERR_FILENO) == 1) out_ = stdout;
}

std::string duration_text(double seconds) {
  if (seconds < 90) return fmt::format("{:.0f} s", seconds);
  if (seconds < 90 * 60) return fmt::format("{:.1f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

std::string eta_text(int done, int total, double elapsed_s) {
  if (done <= 0) return "ETA unknown";
  return "ETA " + duration_text(elapsed_s / done * std::max(total - done, 0));
}

void ProgressLine::show(int done, int total, const std::string& what) {
  if (out_ == nullptr) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  fmt::print(out_, "\r\033[K[{}/{}] {} | {} elapsed, {}", done, total, what, duration_text(elapsed),
             eta_text(done, total, elapsed));
  std::fflush(out_);
  shown_ = true;
}

void ProgressLine::clear() {
  if (out_ == nullptr || !shown_) return;
  fmt::print(out_, "\r\033[K");
  std::fflush(out_);
  shown_ = false;
}

}  // namespace k25

namespace k25 {

void PeriodicProgress::update(const std::string& what, int done, int failed, int total, double elapsed_s) {
  if (what != what_) {
    what_ = what;
    last_line_s_ = 0;
  }
  if (elapsed_s - last_line_s_ < interval_s_) return;
  last_line_s_ = elapsed_s;
  fmt::print(out_, "# {}: {}/{} done{}, {} elapsed, {}\n", what, done, total,
             failed > 0 ? fmt::format(", {} failed", failed) : "", duration_text(elapsed_s),
             eta_text(done, total, elapsed_s));
  std::fflush(out_);
}

namespace {

// " (per token after the first chunk p50 12.00 ms, 4.0 tokens a chunk)" where chunks carry several tokens.
std::string token_interval_words(const ServeLevel& level) {
  if (!several_tokens_per_chunk(level) || !level.token_interval_ms) return {};
  return fmt::format(" (per token after the first chunk p50 {:.2f} ms, {:.1f} tokens a chunk)",
                     level.token_interval_ms->p50, *level.tokens_per_chunk_p50);
}

}  // namespace

std::string serve_level_line(const ServeLevel& level, const std::vector<double>& percentiles) {
  // Stopped by a signal, the planned count: "4/40 completed".
  const int planned =
      level.interrupted && level.planned_requests > 0 ? level.planned_requests : level.requests;
  std::string line = fmt::format("serve C={}: {}/{} completed in {}", level.concurrency, level.completed,
                                 planned, duration_text(level.duration_s));
  if (level.interrupted) line += fmt::format(" (stopped by a signal after {} requests)", level.requests);
  if (level.failed > 0) line += fmt::format(", {} failed: {}", level.failed, describe_errors(level));
  if (level.completed == 0) return line + ": no latency figures";
  const Columns<ServeLevel> columns =
      vllm_metric_columns(percentiles.empty() ? std::vector<double>{99} : percentiles);
  const auto figure = [&](const std::string& key) {
    for (const Column<ServeLevel>& column : columns)
      if (column.key == key) return console_text(column.cell(level));
    return std::string("-");
  };
  // Each latency as one group: "TTFT mean 52.22 median 52.15 P90 60.01 P99 61.20 ms".
  std::string group;
  for (const Column<ServeLevel>& column : columns) {
    if (column.group.empty()) continue;
    if (column.group != group) {
      const bool per_chunk = column.group == "TPOT" && tpot_per_chunk(level);
      line += fmt::format("{}{} | {}", group.empty() ? "" : " ms",
                          group == "TPOT" ? token_interval_words(level) : "",
                          per_chunk ? "TPOT per CHUNK (no token counts, see notes)" : column.group);
      group = column.group;
    }
    std::string label = column.header.substr(0, column.header.size() - column.group.size() - 1);
    if (label == "Mean" || label == "Median") label[0] = static_cast<char>(label[0] - 'A' + 'a');
    const TableCell cell = column.cell(level);
    line +=
        fmt::format(" {} {}", label, cell.value ? fmt::format("{:.2f}", *cell.value) : console_text(cell));
  }
  if (!group.empty()) line += " ms";
  if (tpot_per_chunk(level))
    return line + fmt::format(" | output {} over the whole level (counted in chunks, not tokens)",
                              figure("output_throughput"));
  line += fmt::format(" | output {} tok/s, total {} tok/s over the whole level", figure("output_throughput"),
                      figure("total_token_throughput"));
  return line;
}

std::string decode_note(const PhaseResult& result) {
  if (!result.decode) return {};
  const DecodeFigures& d = *result.decode;
  std::string note = fmt::format(
      "decode {} at {} tokens: comm {:.1f} us of a {:.1f} us step (p50; gaps measured {:.1f} us on rank 0, configured {:.1f} us",
      to_string(result.phase), result.tokens, d.comm_us.p50, result.step_us.p50, d.gap_measured_us.p50,
      d.gap_expected_us);
  if (d.skew_us > 0) note += fmt::format(" with its skew (up to {:g} us per op)", d.skew_us);
  note += ")";
  if (d.join_cost)
    note += fmt::format("; join cost {:.2f}x per op, comm {:.2f}x the back-to-back step", *d.join_cost,
                        d.comm_over_back_to_back.value_or(0));
  return note;
}

}  // namespace k25
