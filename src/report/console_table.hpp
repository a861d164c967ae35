// The console table of results, laid out like nccl-tests' so its users read it at once, plus a progress line.
#pragma once

#include <cstdio>
#include <string>

#include "analysis/phase_result.hpp"

namespace k25 {

class ConsoleTable {
 public:
  explicit ConsoleTable(std::FILE* out) : out_(out) {}
  void print_header() const;
  void print_row(const PhaseResult& result) const;
  void print_note(const std::string& text) const;  // "# ..." line

 private:
  std::FILE* out_;
};

// A one-line progress indicator on stderr, drawn only when stderr is a terminal.
class ProgressLine {
 public:
  ProgressLine();
  void show(int done, int total, const std::string& what);
  void clear();

 private:
  bool enabled_;
  bool shown_ = false;
};

}  // namespace k25
