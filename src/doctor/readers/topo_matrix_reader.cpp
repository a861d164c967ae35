// Reading nvidia-smi's topology matrices: a header row of device columns, then one row per device.
#include "doctor/readers/topo_matrix_reader.hpp"

#include <algorithm>
#include <array>

namespace k25 {
namespace {

constexpr std::size_t kMostLookBack = 5;  // lines above a header searched for the -p2p command

bool is_gpu_label(std::string_view word) {
  return word.size() > 3 && word.substr(0, 3) == "GPU" && small_number(word.substr(3)) >= 0;
}

int gpu_of_label(std::string_view word) {
  return is_gpu_label(word) ? small_number(word.substr(3)) : -1;
}

bool is_extra_column(const std::string& column) {
  return column == "CPU Affinity" || column == "NUMA Affinity" || column == "GPU NUMA ID";
}

// The row's cells: a Markdown row's, else its words. Leading empty cells (a -p2p header's corner) dropped.
std::vector<std::string> cells_of(std::string_view line, bool& markdown) {
  std::vector<std::string_view> raw = table_cells(line);
  markdown = !raw.empty();
  if (!markdown) raw = words_of(line);
  while (!raw.empty() && raw.front().empty()) raw.erase(raw.begin());
  return {raw.begin(), raw.end()};
}

// The header's column names, the multi-word ones of the whitespace form joined again.
std::vector<std::string> columns_of(const std::vector<std::string>& cells) {
  std::vector<std::string> columns;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const auto next = [&](std::size_t k) { return i + k < cells.size() ? cells[i + k] : std::string(); };
    if (cells[i] == "CPU" && next(1) == "Affinity") {
      columns.push_back("CPU Affinity");
      ++i;
    } else if (cells[i] == "NUMA" && next(1) == "Affinity") {
      columns.push_back("NUMA Affinity");
      ++i;
    } else if (cells[i] == "GPU" && next(1) == "NUMA" && next(2) == "ID") {
      columns.push_back("GPU NUMA ID");
      i += 2;
    } else {
      columns.push_back(cells[i]);
    }
  }
  return columns;
}

bool is_header(const std::vector<std::string>& cells) {
  return cells.size() >= 2 && cells[0] == "GPU0" && cells[1] != "X";
}

bool is_p2p_word(std::string_view word) {
  static constexpr std::array<std::string_view, 7> kWords = {"OK", "CNS", "GNS", "TNS", "NS", "DR", "U"};
  return std::find(kWords.begin(), kWords.end(), word) != kWords.end();
}

// The capability a "-p2p X" shortly above the header names.
std::string capability_above(const PastedText& text, std::size_t header) {
  for (std::size_t back = 1; back <= kMostLookBack && back <= header; ++back) {
    const std::string_view line = text.lines[header - back];
    const std::size_t at = line.find("-p2p");
    if (at == std::string_view::npos) continue;
    const std::vector<std::string_view> after = words_of(line.substr(at + 4));
    const std::string letters = after.empty() ? std::string() : std::string(after.front());
    const bool read = letters.find('r') != std::string::npos, write = letters.find('w') != std::string::npos;
    if (read && write) return "read and write";
    if (read) return "read";
    if (write) return "write";
    if (letters.find('n') != std::string::npos) return "NVLink";
    if (letters.find('a') != std::string::npos) return "atomics";
    return {};
  }
  return {};
}

bool ends_matrix(std::string_view line) {
  const std::string_view t = trimmed(line);
  return t.empty() || t.rfind("Legend", 0) == 0 || t.rfind("NIC Legend", 0) == 0;
}

// Reads the matrix whose header is line `header`; returns the index of the first line after it.
std::size_t read_matrix(const PastedText& text, std::size_t header, TopoMatrix& matrix) {
  bool markdown = false;
  const std::vector<std::string> columns = columns_of(cells_of(text.lines[header], markdown));
  matrix.markdown = markdown;
  matrix.header = text.source(header);
  std::size_t devices = 0;
  while (devices < columns.size() && !is_extra_column(columns[devices])) ++devices;
  std::vector<int> column_gpu(devices, -1);
  for (std::size_t c = 0; c < devices; ++c) {
    column_gpu[c] = gpu_of_label(columns[c]);
    if (column_gpu[c] >= 0)
      ++matrix.gpus;
    else
      ++matrix.nics;
  }
  matrix.capability = capability_above(text, header);
  bool any_p2p_word = false, short_row = false;
  std::size_t at = header + 1;
  for (; at < text.lines.size(); ++at) {
    const std::string_view line = text.lines[at];
    if (is_table_rule(line)) continue;
    if (ends_matrix(line)) break;
    bool row_markdown = false;
    const std::vector<std::string> cells = cells_of(line, row_markdown);
    if (cells.empty() || is_header(cells)) break;
    const int gpu = gpu_of_label(cells[0]);
    if (gpu < 0) {
      if (cells[0].rfind("GPU", 0) == 0 || cells.size() < 2) break;  // no row of this matrix
      continue;                                                      // a NIC's row
    }
    ++matrix.rows_read;
    if (cells.size() < devices + 1) short_row = true;
    for (std::size_t c = 0; c < devices && c + 1 < cells.size(); ++c) {
      if (column_gpu[c] < 0 || column_gpu[c] == gpu) continue;
      matrix.cells.push_back({gpu, column_gpu[c], cells[c + 1], text.source(at)});
      any_p2p_word = any_p2p_word || is_p2p_word(cells[c + 1]);
    }
    TopoGpuRow row;
    row.gpu = gpu;
    row.source = text.source(at);
    for (std::size_t c = devices; c < columns.size() && c + 1 < cells.size(); ++c) {
      if (columns[c] == "CPU Affinity") row.cpu_affinity = cells[c + 1];
      if (columns[c] == "NUMA Affinity") row.numa_affinity = cells[c + 1];
    }
    matrix.rows.push_back(std::move(row));
  }
  matrix.p2p = any_p2p_word;
  matrix.cut = short_row || matrix.rows_read < matrix.gpus;
  return at;
}

}  // namespace

bool has_topo_matrix(const PastedText& text) {
  bool markdown = false;
  for (std::size_t i = 0; i + 1 < text.lines.size(); ++i) {
    if (text.lines[i].find("GPU0") == std::string_view::npos) continue;
    if (!is_header(columns_of(cells_of(text.lines[i], markdown)))) continue;
    for (std::size_t k = i + 1; k < text.lines.size() && k <= i + 2; ++k) {
      const std::vector<std::string> row = cells_of(text.lines[k], markdown);
      if (row.size() >= 2 && row[0] == "GPU0" && row[1] == "X") return true;
    }
  }
  return false;
}

std::vector<TopoMatrix> read_topo_matrices(const PastedText& text) {
  std::vector<TopoMatrix> matrices;
  bool markdown = false;
  for (std::size_t i = 0; i < text.lines.size();) {
    if (text.lines[i].find("GPU0") == std::string_view::npos ||
        !is_header(columns_of(cells_of(text.lines[i], markdown)))) {
      ++i;
      continue;
    }
    TopoMatrix matrix;
    const std::size_t next = read_matrix(text, i, matrix);
    if (matrix.rows_read > 0) matrices.push_back(std::move(matrix));
    i = std::max(next, i + 1);
  }
  return matrices;
}

std::string p2p_status_words(const std::string& word) {
  if (word == "OK") return "OK";
  if (word == "CNS") return "chipset not supported";
  if (word == "GNS") return "GPU not supported";
  if (word == "TNS") return "topology not supported";
  if (word == "NS") return "not supported";
  if (word == "DR") return "disabled by regkey";
  if (word == "U") return "unknown";
  return {};
}

}  // namespace k25
