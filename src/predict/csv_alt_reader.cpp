// A CSV of (kind, bytes, op_us[, p90][, dtype][, overlap][, bytes_per][, ranks]) read as an alternative's
// per-op curves.
#include "predict/csv_alt_reader.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "common/error.hpp"
#include "predict/kind_names.hpp"

namespace k25 {
namespace {

std::string trimmed_cell(std::string cell) {
  const std::size_t first = cell.find_first_not_of(" \t\r\"");
  if (first == std::string::npos) return {};
  const std::size_t last = cell.find_last_not_of(" \t\r\"");
  return cell.substr(first, last - first + 1);
}

std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::istringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) cells.push_back(trimmed_cell(cell));
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

bool skipped_line(const std::string& line) {
  const std::string cell = trimmed_cell(line);
  return cell.empty() || cell[0] == '#';
}

struct CsvColumns {
  int kind = -1, bytes = -1, op_us = -1, p90 = -1, dtype = -1, overlap = -1, bytes_per = -1, ranks = -1;
};

// What a CSV says of its sizes besides its rows: "# bytes_per: rank" and "# ranks: N" lines.
struct CsvSizeRule {
  bool per_rank = false;  // "# bytes_per: rank"
  int ranks = 0;          // "# ranks: N"; 0: not said
  int base_ranks = 0;     // the base's group size; 0: not known
  std::string said;       // the note of the per-rank sizes read, once
};

// Whether a bytes_per cell (or header value) says a rank's part: "rank" (or "per-rank"), else "op" (or
// "nccl-tests", or empty): nccl-tests' size.
bool per_rank_cell(const std::string& cell, const std::string& where) {
  const std::string name = normalized_kind(cell);  // lower case, letters and digits only
  if (name == "rank" || name == "perrank") return true;
  if (name.empty() || name == "op" || name == "nccltests") return false;
  throw UsageError(fmt::format(
      "{}: bytes_per '{}' is none of op (nccl-tests' size), rank (a rank's part, as capture.json's rows give it)",
      where, cell));
}

// A rank count as a CSV writes it, a whole number 1 .. 1,000,000; UsageError naming `where` and `what` (the
// column or line that gave it) otherwise.
int rank_count(const std::string& text, const std::string& what, const std::string& where) {
  const std::optional<double> ranks = parse_number(text);
  if (!ranks || *ranks < 1 || *ranks > 1e6 || *ranks != std::floor(*ranks))
    throw UsageError(
        fmt::format("{}: {} '{}' is not a rank count (a whole number 1 .. 1000000)", where, what, text));
  return static_cast<int>(*ranks);
}

// A "# bytes_per: rank" or "# ranks: N" comment into `rule`.
void read_size_comment(const std::string& line, const std::string& where, CsvSizeRule& rule) {
  std::string text = line.substr(line.find('#') + 1);
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos) return;
  const std::string key = normalized_kind(text.substr(0, colon)),
                    value = trimmed_cell(text.substr(colon + 1));
  if (key == "bytesper") rule.per_rank = per_rank_cell(value, where);
  if (key == "ranks") rule.ranks = rank_count(value, "# ranks:", where);
}

// The overlap a row declares: "additive" (or a ring or tree algorithm) or "overlapping" (a one-shot push);
// empty cell: not said.
AltOverlap overlap_cell(const std::string& cell, const std::string& where) {
  std::string name = normalized_kind(cell);  // lower case, letters and digits only
  if (name.empty()) return AltOverlap::unknown;
  if (name == "additive" || name == "ring" || name == "tree") return AltOverlap::additive;
  if (name == "overlapping" || name == "oneshot") return AltOverlap::overlapping;
  throw UsageError(fmt::format(
      "{}: overlap '{}' is none of additive (a ring or tree: it cannot start before the last rank arrives) and overlapping (a one-shot push: it starts at each arrival)",
      where, cell));
}

CsvColumns find_columns(const std::vector<std::string>& header) {
  CsvColumns c;
  for (std::size_t i = 0; i < header.size(); ++i) {
    std::string name = header[i];
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char x) { return std::tolower(x); });
    const int at = static_cast<int>(i);
    if (name == "kind") c.kind = at;
    if (name == "bytes") c.bytes = at;
    if (name == "op_us") c.op_us = at;
    if (name == "p90" || name == "op_us_p90") c.p90 = at;
    if (name == "dtype") c.dtype = at;
    if (name == "overlap") c.overlap = at;
    if (name == "bytes_per") c.bytes_per = at;
    if (name == "ranks") c.ranks = at;
  }
  return c;
}

double positive_cell(const std::vector<std::string>& cells, int column, const char* name,
                     const std::string& where) {
  const std::string cell = column < static_cast<int>(cells.size()) ? cells[column] : "";
  const std::optional<double> value = parse_number(cell);
  if (!value) throw UsageError(fmt::format("{}: {} '{}' is not a number", where, name, cell));
  if (*value <= 0) throw UsageError(fmt::format("{}: {} {} is not positive", where, name, cell));
  return *value;
}

// A row's size as nccl-tests counts it: its bytes, or where the CSV says they are a rank's part, the part x
// the ranks (nccl_tests_size: an AllGather's gathered output, a ReduceScatter's input).
double row_size(const std::vector<std::string>& cells, const CsvColumns& c, const std::string& kind,
                const std::string& where, CsvSizeRule& rule) {
  const auto cell_at = [&](int column) {
    return column >= 0 && column < static_cast<int>(cells.size()) ? cells[column] : "";
  };
  const double bytes = positive_cell(cells, c.bytes, "bytes", where);
  if (bytes > kMaxCollectiveBytes)
    throw UsageError(fmt::format("{}: bytes {:g} is beyond any collective's size (at most {:g}, 1 PiB)",
                                 where, bytes, kMaxCollectiveBytes));
  const bool per_rank = c.bytes_per >= 0 && !cell_at(c.bytes_per).empty()
                            ? per_rank_cell(cell_at(c.bytes_per), where)
                            : rule.per_rank;
  if (!per_rank) return bytes;
  int ranks = rule.ranks;
  std::string from = "its '# ranks:' line";
  if (c.ranks >= 0 && !cell_at(c.ranks).empty()) {
    ranks = rank_count(cell_at(c.ranks), "ranks", where);
    from = "its ranks column";
  } else if (ranks == 0) {
    ranks = rule.base_ranks;
    from = "the base's group size";
  }
  const bool size_of_ranks = nccl_tests_size(kind, 1, 2) != 1;  // AllGather, ReduceScatter
  if (ranks <= 0 && size_of_ranks)
    throw UsageError(fmt::format(
        "{}: per-rank bytes of {} need the rank count: give '# ranks: N' or a ranks column (the base's group size is not known)",
        where, kind_title(kind)));
  if (rule.said.empty() && size_of_ranks)
    rule.said = fmt::format(
        "per-rank sizes (bytes_per rank) x {} ranks, {}: read at nccl-tests' size (an AllGather's gathered output, a ReduceScatter's input)",
        ranks, from);
  return nccl_tests_size(kind, bytes, ranks);
}

void read_row(const std::vector<std::string>& cells, const CsvColumns& c, const std::string& where,
              CsvSizeRule& rule, AltDocument& alt) {
  const std::string kind = c.kind < static_cast<int>(cells.size()) ? normalized_kind(cells[c.kind]) : "";
  if (kind.empty()) throw UsageError(where + ": the kind is empty");
  AltPoint point{row_size(cells, c, kind, where, rule), positive_cell(cells, c.op_us, "op_us", where),
                 std::nullopt};
  if (c.p90 >= 0 && c.p90 < static_cast<int>(cells.size()) && !cells[c.p90].empty()) {
    point.op_p90_us = positive_cell(cells, c.p90, "p90", where);
    if (*point.op_p90_us < point.op_us) throw UsageError(where + ": p90 is below op_us");
  }
  const auto cell_at = [&](int column) {
    return column >= 0 && column < static_cast<int>(cells.size()) ? cells[column] : "";
  };
  AltCurve key;
  key.kind = kind;
  key.dtype = normalized_dtype(cell_at(c.dtype));
  key.overlap = overlap_cell(cell_at(c.overlap), where);
  for (const AltCurve& curve : alt.curves)
    if (curve.kind == key.kind && curve.dtype == key.dtype && curve.overlap != key.overlap)
      throw UsageError(fmt::format("{}: {} is declared {} here and {} above: one overlap per kind", where,
                                   kind_title(kind), to_string(key.overlap), to_string(curve.overlap)));
  add_point(alt.curves, key, point);
}

}  // namespace

bool looks_like_alt_csv(const std::string& text) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (skipped_line(line)) continue;
    const CsvColumns c = find_columns(csv_cells(line));
    return c.kind >= 0 || c.bytes >= 0 || c.op_us >= 0;
  }
  return false;
}

AltDocument alt_from_csv(const std::string& text, const std::string& path, int base_ranks) {
  AltDocument alt;
  alt.path = path;
  alt.timing = "the CSV's op_us per op";
  std::istringstream in(text);
  std::optional<CsvColumns> columns;
  CsvSizeRule rule;
  rule.base_ranks = base_ranks;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (skipped_line(line)) {
      if (!trimmed_cell(line).empty()) read_size_comment(line, fmt::format("{}:{}", path, number), rule);
      continue;
    }
    if (!columns) {
      columns = find_columns(csv_cells(line));
      for (const auto& [index, name] : {std::pair{columns->kind, "kind"}, std::pair{columns->bytes, "bytes"},
                                        std::pair{columns->op_us, "op_us"}})
        if (index < 0)
          throw UsageError(fmt::format(
              "{}: CSV without a '{}' column (columns: kind, bytes, op_us[, p90][, dtype][, overlap][, bytes_per][, ranks])",
              path, name));
      continue;
    }
    read_row(csv_cells(line), *columns, fmt::format("{}:{}", path, number), rule, alt);
  }
  if (alt.curves.empty()) throw UsageError(path + ": CSV without a row of figures");
  alt.ranks = rule.ranks;
  if (!rule.said.empty()) alt.notes.push_back(rule.said);
  return alt;
}

}  // namespace k25
