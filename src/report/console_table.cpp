// Formats result rows (bytes, tokens, time per op and per step, algbw, busbw, wrong) as fixed-width columns.
#include "report/console_table.hpp"

#include <unistd.h>

#include <fmt/format.h>

namespace k25 {

void ConsoleTable::print_header() const {
  fmt::print(
      out_, "#\n# {:>9} {:>6} {:>11} {:>4} {:>5} {:>7} {:>10} {:>10} {:>11} {:>11} {:>8} {:>8} {:>6} {:>7}\n",
      "phase", "tokens", "bytes", "ops", "mode", "trials", "op p50", "op p90", "step p50", "step p90",
      "algbw", "busbw", "wrong", "slowest");
  fmt::print(
      out_, "# {:>9} {:>6} {:>11} {:>4} {:>5} {:>7} {:>10} {:>10} {:>11} {:>11} {:>8} {:>8} {:>6} {:>7}\n",
      "", "", "(per op)", "", "", "", "(us)", "(us)", "(us)", "(us)", "(GB/s)", "(GB/s)", "", "(rank)");
  std::fflush(out_);
}

void ConsoleTable::print_row(const PhaseResult& r) const {
  const double bytes =
      r.phase == Phase::allreduce ? static_cast<double>(r.bytes_per_op) : r.bytes_per_rank_mean;
  fmt::print(out_,
             "  {:>9} {:>6} {:>11.0f} {:>4} {:>5} {:>7} {:>10.2f} {:>10.2f} {:>11.1f} {:>11.1f} {:>8.2f} "
             "{:>8.2f} {:>6} {:>7}\n",
             to_string(r.phase), r.tokens, bytes, r.ops_per_step, to_string(r.mode), r.iterations,
             r.op_us.p50, r.op_us.p90, r.step_us.p50, r.step_us.p90, r.algbw_gbps, r.busbw_gbps,
             r.checked ? fmt::format("{}", r.wrong) : std::string("-"), r.slowest_rank);
  std::fflush(out_);
}

void ConsoleTable::print_note(const std::string& text) const {
  fmt::print(out_, "# {}\n", text);
  std::fflush(out_);
}

ProgressLine::ProgressLine() : enabled_(::isatty(STDERR_FILENO) == 1) {}

void ProgressLine::show(int done, int total, const std::string& what) {
  if (!enabled_) return;
  fmt::print(stderr, "\r\033[K[{}/{}] {}", done, total, what);
  std::fflush(stderr);
  shown_ = true;
}

void ProgressLine::clear() {
  if (!enabled_ || !shown_) return;
  fmt::print(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace k25
