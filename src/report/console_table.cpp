// Formats result rows (bytes, tokens, time per op and per step, algbw, busbw, wrong) as fixed-width columns.
#include "report/console_table.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "serve/level_metrics.hpp"

namespace k25 {

namespace {

// "4", or "3->4" where graph mode padded the 3 tokens asked to the capture size 4.
std::string tokens_cell(const PhaseResult& r) {
  if (r.requested_tokens == r.tokens || r.requested_tokens <= 0) return std::to_string(r.tokens);
  return fmt::format("{}->{}", r.requested_tokens, r.tokens);
}

}  // namespace

void ConsoleTable::print_header(bool graph_padding) const {
  fmt::print(
      out_,
      "#\n# {:>13} {:>8} {:>11} {:>4} {:>6} {:>7} {:>10} {:>10} {:>11} {:>11} {:>8} {:>8} {:>6} {:>7}\n",
      "phase", "tokens", "bytes", "ops", "mode", "trials", "op p50", "op p90", "step p50", "step p90",
      "algbw", "busbw", "wrong", "slowest");
  fmt::print(
      out_, "# {:>13} {:>8} {:>11} {:>4} {:>6} {:>7} {:>10} {:>10} {:>11} {:>11} {:>8} {:>8} {:>6} {:>7}\n",
      "", "", "(per op)", "", "", "", "(us)", "(us)", "(us)", "(us)", "(GB/s)", "(GB/s)", "", "(rank)");
  fmt::print(
      out_,
      "# tokens: per decode step for allreduce, allgather and reducescatter, per rank for dispatch and "
      "combine{}\n",
      graph_padding ? "; 3->4: 3 asked, measured at the CUDA-graph capture size 4 (graph mode pads, as "
                      "vLLM does)"
                    : "");
  std::fflush(out_);
}

void ConsoleTable::print_row(const PhaseResult& r) const {
  const double bytes = !r.per_rank_bytes() ? static_cast<double>(r.bytes_per_op) : r.bytes_per_rank_mean;
  fmt::print(out_,
             "  {:>13} {:>8} {:>11.0f} {:>4} {:>6} {:>7} {:>10.2f} {:>10.2f} {:>11.1f} {:>11.1f} {:>8.2f} "
             "{:>8.2f} {:>6} {:>7}\n",
             to_string(r.phase), tokens_cell(r), bytes, r.ops_per_step, to_string(r.mode), r.iterations,
             r.op_us.p50, r.op_us.p90, r.step_us.p50, r.step_us.p90, r.algbw_gbps, r.busbw_gbps,
             r.checked ? fmt::format("{}", r.wrong) : std::string("-"), r.slowest_rank);
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

std::string metric(const ServeLevel& level, const std::string& key) {
  const auto found = level.vllm_bench_serve.find(key);
  if (found == level.vllm_bench_serve.end() || !found->second) return "-";
  return fmt::format("{:.4g}", *found->second);
}

}  // namespace

std::string serve_level_line(const ServeLevel& level, const std::vector<double>& percentiles) {
  std::string line = fmt::format("serve C={}: {}/{} completed in {}", level.concurrency, level.completed,
                                 level.requests, duration_text(level.duration_s));
  if (level.failed > 0) line += fmt::format(", {} failed: {}", level.failed, describe_errors(level));
  if (level.completed == 0) return line + ": no latency figures";
  const std::string pname = percentiles.empty() ? "p99" : percentile_name(percentiles.front());
  for (const char* name : {"ttft", "tpot", "itl", "e2el"}) {
    std::string upper = name;
    for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    if (upper == "TPOT" && tpot_per_chunk(level)) upper = "TPOT per CHUNK (no token counts, see notes)";
    line += fmt::format(" | {} mean {} median {} P{} {} ms", upper,
                        metric(level, fmt::format("mean_{}_ms", name)),
                        metric(level, fmt::format("median_{}_ms", name)), pname.substr(1),
                        metric(level, fmt::format("{}_{}_ms", pname, name)));
  }
  line += fmt::format(" | output {} tok/s, total {} tok/s", metric(level, "output_throughput"),
                      metric(level, "total_token_throughput"));
  return line;
}

std::string decode_note(const PhaseResult& result) {
  if (!result.decode) return {};
  const DecodeFigures& d = *result.decode;
  std::string note = fmt::format(
      "decode {} at {} tokens: comm {:.1f} us of a {:.1f} us step (p50; gaps measured {:.1f} us on rank 0, "
      "configured {:.1f} us",
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
