// The console table of results, laid out like nccl-tests' so its users read it at once, plus a progress line.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "analysis/phase_result.hpp"
#include "serve/serve_result.hpp"

namespace k25 {

class ConsoleTable {
 public:
  explicit ConsoleTable(std::FILE* out) : out_(out) {}
  // The column heads and what the tokens column means; `graph_padding`: some count is measured padded, and
  // the note says how "3->4" reads.
  void print_header(bool graph_padding) const;
  void print_row(const PhaseResult& result) const;
  void print_note(const std::string& text) const;  // "# ..." line

 private:
  std::FILE* out_;
};

// The note under a decode-mode row: communication within the step, the gaps measured against the configured
// ones, and the join cost where known: "decode allreduce at 16 tokens: comm 812.0 us of a 3012.4 us step
// (gaps measured 2200.4 us, configured 2200.0 us + skew up to 5.0 us per op); join cost 2.31x per op".
std::string decode_note(const PhaseResult& result);

// A one-line progress indicator, drawn only on a terminal: "[3/18] allreduce tokens=16 eager | 41 s elapsed,
// ETA 3 min" (the ETA assumes the points left take as long as the ones done), on stdout. Only where both
// stdout and stderr are terminals: mpirun gives rank 0 a pseudo-terminal for stdout even when its own output
// goes to a file or pipe (stderr stays a pipe), and a log must not fill with redrawn lines. Under mpirun the
// sweep prints PeriodicProgress lines instead.
class ProgressLine {
 public:
  ProgressLine();
  void show(int done, int total, const std::string& what);
  void clear();

 private:
  std::FILE* out_ = nullptr;  // null: not a terminal, nothing drawn
  bool shown_ = false;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

// "ETA 42 s" from the time the finished part took; "ETA unknown" before anything finished.
std::string eta_text(int done, int total, double elapsed_s);
// "41 s", "3.5 min", "2.1 h".
std::string duration_text(double seconds);

// Progress of a long task as "# ..." lines at most every `interval_s` of its elapsed time, on any output (a
// serve level can take minutes, and silence looks like a hang).
class PeriodicProgress {
 public:
  PeriodicProgress(std::FILE* out, double interval_s) : out_(out), interval_s_(interval_s) {}
  // Prints "# {what}: {done}/{total} done[, F failed], {elapsed} elapsed, ETA ..." once `elapsed_s` is
  // interval_s past the last line of this task; a new `what` starts a new task.
  void update(const std::string& what, int done, int failed, int total, double elapsed_s);

 private:
  std::FILE* out_;
  double interval_s_;
  std::string what_;
  double last_line_s_ = 0;
};

// The console line of a finished serve level, in vllm bench serve's words (report/serve_columns.hpp, as
// report.md shows them): completed/requests, duration, mean, median and every chosen percentile of TTFT,
// TPOT, ITL and E2EL, output and total token throughput over the whole level; the error classes when requests
// failed; "no latency figures" when none completed.
std::string serve_level_line(const ServeLevel& level, const std::vector<double>& percentiles);

}  // namespace k25
