// nccl-tests' printed result table read as an alternative's per-op curve.
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "common/error.hpp"
#include "predict/kind_names.hpp"
#include "predict/nccl_tests_reader.hpp"

namespace k25 {
namespace {

const std::string kStartMark = "# Collective test starting:";

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// The header line's column names ("#  size count type redop root time algbw busbw #wrong time ..."), '#'
// dropped; empty when `line` is not that header.
std::vector<std::string> table_columns(const std::string& line) {
  if (line.empty() || line[0] != '#') return {};
  std::vector<std::string> columns = words_of(line.substr(1));
  if (columns.size() < 5 || columns[0] != "size" || columns[1] != "count") return {};
  return columns;
}

struct TextTable {
  std::string kind, dtype;
  int ranks = 0;
  std::vector<std::string> columns;
};

// The result line's op time at `column` (the first "time"/"cputime" column, else the next one).
std::optional<double> line_time(const std::vector<std::string>& words,
                                const std::vector<std::string>& columns) {
  for (std::size_t i = 0; i < columns.size() && i < words.size(); ++i)
    if (columns[i] == "time" || columns[i] == "cputime")
      if (std::optional<double> value = parse_number(words[i])) return value;
  return std::nullopt;
}

void read_result_line(const std::string& line, int number, TextTable& table, AltDocument& alt) {
  const std::vector<std::string> words = words_of(line);
  if (words.size() < 3 || !parse_number(words[0])) return;  // not a result line
  const std::string where = fmt::format("{}:{}", alt.path, number);
  if (table.columns.empty())
    throw UsageError(where + ": an nccl-tests result line before the table's header (size count type ...)");
  if (table.kind.empty())
    throw UsageError(alt.path + ": nccl-tests output without its '" + kStartMark +
                     " NAME' line: the collective it measured is not known");
  const double bytes = *parse_number(words[0]);
  const std::optional<double> time = line_time(words, table.columns);
  if (!time) throw UsageError(where + ": an nccl-tests result line without a time");
  if (*time < 0 || bytes < 0) throw UsageError(where + ": a negative size or time");
  if (bytes == 0 || *time == 0) return;  // nothing moved: no point of a log-log curve
  table.dtype = words.size() > 2 ? normalized_dtype(words[2]) : "";
  add_point(alt, table.kind, table.dtype, AltPoint{bytes, *time, std::nullopt});
}

}  // namespace

bool looks_like_nccl_tests_text(const std::string& text) {
  if (text.find("# nccl-tests version") != std::string::npos) return true;
  if (text.find(kStartMark) != std::string::npos) return true;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!table_columns(line).empty()) return true;
  return false;
}

AltDocument alt_from_nccl_tests_text(const std::string& text, const std::string& path) {
  AltDocument alt;
  alt.path = path;
  alt.format = "nccl-tests text";
  alt.timing = "nccl-tests' out-of-place time per op (wall time of its iterations / iterations)";
  TextTable table;
  std::istringstream in(text);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.rfind(kStartMark, 0) == 0) {
      const std::vector<std::string> name = words_of(line.substr(kStartMark.size()));
      if (!name.empty()) table.kind = normalized_kind(name[0]);
    } else if (line.rfind("#  Rank", 0) == 0) {
      ++table.ranks;
    } else if (std::vector<std::string> columns = table_columns(line); !columns.empty()) {
      table.columns = std::move(columns);
    } else if (!line.empty() && line[0] != '#') {
      read_result_line(line, number, table, alt);
    }
  }
  if (alt.curves.empty()) throw UsageError(path + ": nccl-tests output without a result line");
  alt.ranks = table.ranks;
  alt.notes.push_back("nccl-tests gives one time per size (a mean over its iterations): p90 is taken as p50");
  return alt;
}

}  // namespace k25
