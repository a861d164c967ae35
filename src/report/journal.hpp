// The journal: JSON Lines in the output directory, one record per line, written and flushed to disk as each
// result is gathered, so a crash loses nothing already measured. Line types: run_start, result, serve_start,
// serve_level, run_end (see docs/report-fields.md, "Output files").
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/unique_fd.hpp"

namespace k25 {

class Journal {
 public:
  explicit Journal(std::string path);  // creates or truncates; throws RuntimeFault when it cannot
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // Appends one line and flushes it to disk (write + fdatasync). Throws RuntimeFault on a write error.
  void append(const nlohmann::json& record);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  UniqueFd fd_;
};

}  // namespace k25
