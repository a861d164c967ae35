// A CSV of (kind, bytes, op_us[, p90][, dtype]) read as an alternative's per-op curves.
#include "predict/csv_alt_reader.hpp"

#include <algorithm>
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
  int kind = -1, bytes = -1, op_us = -1, p90 = -1, dtype = -1, overlap = -1;
};

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

void read_row(const std::vector<std::string>& cells, const CsvColumns& c, const std::string& where,
              AltDocument& alt) {
  const std::string kind = c.kind < static_cast<int>(cells.size()) ? normalized_kind(cells[c.kind]) : "";
  if (kind.empty()) throw UsageError(where + ": the kind is empty");
  AltPoint point{positive_cell(cells, c.bytes, "bytes", where), positive_cell(cells, c.op_us, "op_us", where),
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

AltDocument alt_from_csv(const std::string& text, const std::string& path) {
  AltDocument alt;
  alt.path = path;
  alt.timing = "the CSV's op_us per op";
  std::istringstream in(text);
  std::optional<CsvColumns> columns;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (skipped_line(line)) continue;
    if (!columns) {
      columns = find_columns(csv_cells(line));
      for (const auto& [index, name] : {std::pair{columns->kind, "kind"}, std::pair{columns->bytes, "bytes"},
                                        std::pair{columns->op_us, "op_us"}})
        if (index < 0)
          throw UsageError(fmt::format(
              "{}: CSV without a '{}' column (columns: kind, bytes, op_us[, p90][, dtype][, overlap])", path,
              name));
      continue;
    }
    read_row(csv_cells(line), *columns, fmt::format("{}:{}", path, number), alt);
  }
  if (alt.curves.empty()) throw UsageError(path + ": CSV without a row of figures");
  return alt;
}

}  // namespace k25
