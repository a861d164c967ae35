// Output tables as column lists, as nvbench's table_builder makes them: a table is one list of columns
// {header, unit, cell(row)}, and the same list renders to Markdown, to the console (fixed-width, nccl-tests
// style) and to CSV and JSON records. A new field is one column in one list, and cells cannot fall under the
// wrong header.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/csv_table.hpp"

namespace k25 {

// One cell: text, or a figure that each output writes its own way (Markdown with about three significant
// digits, the console with fixed decimals, CSV and JSON in full).
struct TableCell {
  TableCell() = default;
  TableCell(std::string cell_text) : text(std::move(cell_text)) {}  // NOLINT: implicit, cells are mostly text
  TableCell(const char* cell_text) : text(cell_text) {}             // NOLINT
  // A measured figure; `console_decimals` fixed decimals on the console.
  static TableCell number(double figure, int console_decimals = 2) {
    TableCell cell;
    cell.value = figure;
    cell.decimals = console_decimals;
    return cell;
  }
  // A count: an integer everywhere ("8", never "8.000").
  static TableCell count(double figure) {
    TableCell cell = number(figure, 0);
    cell.integer = true;
    return cell;
  }
  // A figure shown as `shown`, written in full to CSV and JSON (null there when absent).
  static TableCell figure(std::optional<double> figure, std::string shown) {
    TableCell cell(std::move(shown));
    cell.value = figure;
    cell.blank_in_data = !figure;
    return cell;
  }
  // Text shown, and other data (a flag, a list) in CSV and JSON.
  static TableCell with_data(std::string shown, nlohmann::json data) {
    TableCell cell(std::move(shown));
    cell.data = std::move(data);
    return cell;
  }

  std::string text;             // shown in Markdown and on the console; empty: the value, formatted
  std::optional<double> value;  // a figure
  nlohmann::json data;          // CSV and JSON write this instead of the text, when not null
  bool blank_in_data = false;   // CSV and JSON: nothing (a figure that is missing, shown as "-")
  int decimals = 2;
  bool integer = false;
};

// Which outputs show a column.
enum TableOutput : unsigned {
  kMarkdownOutput = 1,
  kConsoleOutput = 2,
  kDataOutput = 4,  // CSV and JSON
  kEveryOutput = 7
};

enum class Align { right, left };

template <typename Row>
struct Column {
  std::string header = {};  // "step p50"
  std::string unit = {};    // "us", "GB/s"; empty for none
  std::function<TableCell(const Row&)> cell = {};
  unsigned outputs = kEveryOutput;
  int console_width = 0;  // at least this wide on the console (rows print one by one as they are measured)
  Align align = Align::right;
  std::string key = {};    // CSV and JSON name; empty: the heading
  std::string group = {};  // a family of columns, for a one-line rendering ("TTFT": mean, median, P99)
};

template <typename Row>
using Columns = std::vector<Column<Row>>;

// "1,234,567": a large figure with thousands separators.
inline std::string with_thousands(double value) {
  // A hostile report's 1e300 (or NaN) has no long long form: llround's result would be unspecified.
  if (!(std::fabs(value) < 1e18)) return fmt::format("{:.3g}", value);
  const long long rounded = std::llround(value);
  const std::string digits = std::to_string(rounded < 0 ? -rounded : rounded);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return rounded < 0 ? "-" + out : out;
}

// Three significant-ish digits for times and rates: "0.123", "12.34", "123.4", "1,234".
inline std::string readable_number(double value) {
  if (value == 0) return "0";
  const double magnitude = std::fabs(value);
  if (magnitude >= 1000) return with_thousands(value);
  if (magnitude >= 100) return fmt::format("{:.1f}", value);
  if (magnitude >= 10) return fmt::format("{:.2f}", value);
  return fmt::format("{:.3f}", value);
}

// Markdown table cell text: pipes escaped, newlines flattened; "-" for an empty cell.
inline std::string markdown_cell(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    if (ch == '|') {
      out += "\\|";
    } else if (ch == '\n') {
      out += ' ';
    } else {
      out += ch;
    }
  }
  return out.empty() ? "-" : out;
}

inline std::string markdown_text(const TableCell& cell) {
  if (!cell.text.empty() || !cell.value) return markdown_cell(cell.text);
  return cell.integer ? with_thousands(*cell.value) : readable_number(*cell.value);
}

inline std::string console_text(const TableCell& cell) {
  if (!cell.text.empty() || !cell.value) return cell.text.empty() ? "-" : cell.text;
  if (!std::isfinite(*cell.value)) return fmt::format("{}", *cell.value);
  return fmt::format("{:.{}f}", *cell.value, cell.integer ? 0 : cell.decimals);
}

// What CSV and JSON hold for a cell: its data, its figure in full, or its text.
inline nlohmann::json cell_data(const TableCell& cell) {
  if (cell.blank_in_data) return nullptr;
  if (!cell.data.is_null()) return cell.data;
  if (cell.value) {
    if (cell.integer && std::fabs(*cell.value) < 1e18) return std::llround(*cell.value);
    return *cell.value;
  }
  return cell.text;
}

// A column's heading in one line: "step p50 (us)".
template <typename Row>
std::string heading(const Column<Row>& column) {
  return column.unit.empty() ? column.header : column.header + " (" + column.unit + ")";
}

// How a Markdown table aligns: numbers right (all columns but the first and left-aligned ones), or all left.
enum class TableLayout { numeric, text };

// A Markdown table of the columns with Markdown output, one line per row.
template <typename Row>
std::string markdown_table(const Columns<Row>& columns, const std::vector<const Row*>& rows,
                           TableLayout layout = TableLayout::numeric) {
  std::string head = "|", rule = "|";
  bool first = true;
  for (const Column<Row>& column : columns) {
    if (!(column.outputs & kMarkdownOutput)) continue;
    head += " " + markdown_cell(heading(column)) + " |";
    const bool left = first || layout == TableLayout::text || column.align == Align::left;
    rule += left ? "---|" : "---:|";
    first = false;
  }
  std::string md = head + "\n" + rule + "\n";
  for (const Row* row : rows) {
    md += "|";
    for (const Column<Row>& column : columns)
      if (column.outputs & kMarkdownOutput) md += " " + markdown_text(column.cell(*row)) + " |";
    md += "\n";
  }
  return md;
}

// The same table turned on its side: one line per column ("Mean TTFT (ms)"), one column per row, headed by
// `row_heading(row)`; `corner` heads the first column.
template <typename Row>
std::string markdown_table_transposed(const Columns<Row>& columns, const std::vector<const Row*>& rows,
                                      const std::string& corner,
                                      const std::function<std::string(const Row&)>& row_heading) {
  std::string md = "| " + markdown_cell(corner) + " |";
  std::string rule = "|---|";
  for (const Row* row : rows) {
    md += " " + markdown_cell(row_heading(*row)) + " |";
    rule += "---:|";
  }
  md += "\n" + rule + "\n";
  for (const Column<Row>& column : columns) {
    if (!(column.outputs & kMarkdownOutput)) continue;
    md += "| " + markdown_cell(heading(column)) + " |";
    for (const Row* row : rows) md += " " + markdown_text(column.cell(*row)) + " |";
    md += "\n";
  }
  return md;
}

// How a console table is laid out: what starts its heading lines and its rows, and what separates columns.
// The results table is nccl-tests' ("# " heading, "  " rows, one space); compare's starts at the margin.
struct ConsoleStyle {
  std::string heading_lead = "#";
  std::string row_lead = " ";
  std::string gap = " ";
};

// Console width of each column: its console_width, room for its header and "(unit)", and for `rows`' cells.
template <typename Row>
std::vector<std::size_t> console_widths(const Columns<Row>& columns,
                                        const std::vector<const Row*>& rows = {}) {
  std::vector<std::size_t> widths;
  for (const Column<Row>& column : columns) {
    const std::size_t unit = column.unit.empty() ? 0 : column.unit.size() + 2;
    std::size_t width =
        std::max({static_cast<std::size_t>(column.console_width), column.header.size(), unit});
    for (const Row* row : rows) width = std::max(width, console_text(column.cell(*row)).size());
    widths.push_back(width);
  }
  return widths;
}

// One console line: `text(column)` of each column with console output, aligned to its width.
template <typename Row>
std::string console_line(const Columns<Row>& columns, const std::vector<std::size_t>& widths,
                         const std::string& lead, const std::string& gap,
                         const std::function<std::string(const Column<Row>&)>& text) {
  std::string line = lead;
  bool first = true;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (!(columns[i].outputs & kConsoleOutput)) continue;
    if (!first || !lead.empty()) line += gap;
    first = false;
    const std::string cell = text(columns[i]);
    line += columns[i].align == Align::left ? fmt::format("{:<{}}", cell, widths[i])
                                            : fmt::format("{:>{}}", cell, widths[i]);
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line + "\n";
}

// The console's heading: a line of headers and, where some column has a unit, a line of "(unit)"s.
template <typename Row>
std::string console_heading(const Columns<Row>& columns, const std::vector<std::size_t>& widths,
                            const ConsoleStyle& style = {}) {
  std::string text = console_line<Row>(columns, widths, style.heading_lead, style.gap,
                                       [](const Column<Row>& c) { return c.header; });
  if (std::any_of(columns.begin(), columns.end(), [](const Column<Row>& c) { return !c.unit.empty(); }))
    text += console_line<Row>(columns, widths, style.heading_lead, style.gap, [](const Column<Row>& c) {
      return c.unit.empty() ? std::string() : "(" + c.unit + ")";
    });
  return text;
}

// One console row under console_heading's columns.
template <typename Row>
std::string console_row(const Columns<Row>& columns, const std::vector<std::size_t>& widths, const Row& row,
                        const ConsoleStyle& style = {}) {
  return console_line<Row>(columns, widths, style.row_lead, style.gap,
                           [&](const Column<Row>& c) { return console_text(c.cell(row)); });
}

// A whole console table, each column as wide as its widest cell.
template <typename Row>
std::string console_table(const Columns<Row>& columns, const std::vector<const Row*>& rows,
                          const ConsoleStyle& style = {}) {
  const std::vector<std::size_t> widths = console_widths(columns, rows);
  std::string text = console_heading(columns, widths, style);
  for (const Row* row : rows) text += console_row(columns, widths, *row, style);
  return text;
}

// A column's name in CSV and JSON.
template <typename Row>
std::string data_key(const Column<Row>& column) {
  return column.key.empty() ? heading(column) : column.key;
}

// One JSON object per row, keyed by data_key, of the columns with data output.
template <typename Row>
std::vector<nlohmann::json> table_records(const Columns<Row>& columns, const std::vector<const Row*>& rows) {
  std::vector<nlohmann::json> records;
  for (const Row* row : rows) {
    nlohmann::json record = nlohmann::json::object();
    for (const Column<Row>& column : columns)
      if (column.outputs & kDataOutput) record[data_key(column)] = cell_data(column.cell(*row));
    records.push_back(std::move(record));
  }
  return records;
}

// CSV (RFC 4180) of the columns with data output, in their order, headed by data_key.
template <typename Row>
std::string csv_table(const Columns<Row>& columns, const std::vector<const Row*>& rows) {
  std::vector<std::string> keys;
  for (const Column<Row>& column : columns)
    if (column.outputs & kDataOutput) keys.push_back(data_key(column));
  return csv_of_records(table_records(columns, rows), keys);
}

// Pointers to every element of `rows`, for the renderers.
template <typename Row>
std::vector<const Row*> row_pointers(const std::vector<Row>& rows) {
  std::vector<const Row*> pointers;
  for (const Row& row : rows) pointers.push_back(&row);
  return pointers;
}

}  // namespace k25
