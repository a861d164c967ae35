// Reading the bandwidth tests' device lines and matrices: a title, a header of column indices, rows of
// figures.
#include "doctor/readers/bandwidth_matrix_reader.hpp"

#include <algorithm>
#include <regex>

#include <fmt/format.h>

namespace k25 {
namespace {

const std::regex& p2p_device_line() {
  static const std::regex re(
      R"(^Device: (\d+), (.+?), pciBusID: ([0-9a-fA-F]+), pciDeviceID: ([0-9a-fA-F]+), pciDomainID:\s*([0-9a-fA-F]+))");
  return re;
}

const std::regex& nvbandwidth_device_line() {
  static const std::regex re(
      R"(^Device (\d+): (.+?)(?: \(([0-9a-fA-F]{4,8}):([0-9a-fA-F]{2}):([0-9a-fA-F]{2})(?:\.[0-7])?\))?\s*$)");
  return re;
}

const std::regex& access_line() {
  static const std::regex re(R"(^Device=(\d+) (CAN|CANNOT) Access Peer Device=(\d+))");
  return re;
}

bool is_p2p_title(std::string_view line) {
  return line.find("Matrix") != std::string_view::npos &&
         (line.find("P2P=") != std::string_view::npos ||
          line.find("P2P Connectivity") != std::string_view::npos);
}

bool is_nvbandwidth_title(std::string_view line) {
  return line.rfind("memcpy ", 0) == 0 && line.find("GPU(row)") != std::string_view::npos &&
         line.find("GPU(column)") != std::string_view::npos;
}

// A header's column indices ("D\D 0 1 2", "GPU 0 1", "0 1 2"); empty where the line is no header.
std::vector<int> header_columns(std::string_view line) {
  std::vector<int> columns;
  for (std::string_view word : words_of(line)) {
    if (word == "D\\D" || word == "GPU") continue;
    const int index = small_number(word);
    if (index < 0) return {};
    columns.push_back(index);
  }
  return columns;
}

// Reads the matrix whose title is line `title`; returns the first line after it.
std::size_t read_matrix(const PastedText& text, std::size_t title, BandwidthMatrix& matrix) {
  std::size_t at = title + 1;
  while (at < text.lines.size() && trimmed(text.lines[at]).empty()) ++at;
  if (at >= text.lines.size()) {
    matrix.cut = true;
    return at;
  }
  matrix.columns = header_columns(text.lines[at]);
  if (matrix.columns.empty()) return at;
  for (++at; at < text.lines.size(); ++at) {
    const std::string_view line = trimmed(text.lines[at]);
    if (line.rfind("---", 0) == 0) continue;  // nvbandwidth's rule under some headers
    const std::vector<std::string_view> words = words_of(line);
    if (words.empty()) break;
    const int row = small_number(words[0]);
    if (row < 0) break;
    ++matrix.rows_read;
    if (words.size() < matrix.columns.size() + 1) matrix.cut = true;
    for (std::size_t c = 0; c + 1 < words.size() && c < matrix.columns.size(); ++c) {
      const double value = words[c + 1] == "N/A" ? -1 : decimal_number(words[c + 1]);
      matrix.cells.push_back({row, matrix.columns[c], value, text.source(at)});
    }
  }
  if (matrix.rows_read < static_cast<int>(matrix.columns.size())) matrix.cut = true;
  return at;
}

void classify_p2p_title(std::string_view line, BandwidthMatrix& matrix) {
  matrix.tool = "p2pBandwidthLatencyTest";
  if (line.find("Connectivity") != std::string_view::npos)
    matrix.kind = MatrixKind::connectivity;
  else if (line.find("Latency") != std::string_view::npos)
    matrix.kind = MatrixKind::latency;
  else if (line.find("Bidirectional") != std::string_view::npos)
    matrix.kind = MatrixKind::bidirectional;
  else
    matrix.kind = MatrixKind::unidirectional;
  if (line.find("P2P=Enabled") != std::string_view::npos) matrix.p2p = 1;
  if (line.find("P2P=Disabled") != std::string_view::npos) matrix.p2p = 0;
}

}  // namespace

bool has_bandwidth_tests(const PastedText& text) {
  for (std::string_view line : text.lines) {
    const std::string_view t = trimmed(line);
    if (t.find("P2P (Peer-to-Peer) GPU Bandwidth Latency Test") != std::string_view::npos ||
        t.rfind("nvbandwidth Version", 0) == 0 || is_p2p_title(t) || is_nvbandwidth_title(t))
      return true;
  }
  return false;
}

BandwidthTests read_bandwidth_tests(const PastedText& text) {
  BandwidthTests tests;
  std::string running;  // nvbandwidth's "Running device_to_device_memcpy_read_ce."
  std::smatch part;
  for (std::size_t i = 0; i < text.lines.size();) {
    const std::string_view t = trimmed(text.lines[i]);
    const std::string line(t.substr(0, 1024));
    if (std::regex_search(line, part, p2p_device_line())) {
      tests.devices.push_back({small_number(part[1].str()), part[2].str(),
                               fmt::format("{:04x}:{:02x}:{:02x}.0", std::stoul(part[5].str(), nullptr, 16),
                                           std::stoul(part[3].str(), nullptr, 16) & 0xff,
                                           std::stoul(part[4].str(), nullptr, 16) & 0x1f),
                               text.source(i)});
    } else if (line.rfind("Device ", 0) == 0 && std::regex_match(line, part, nvbandwidth_device_line())) {
      std::string bus;
      if (part[3].matched)
        bus = fmt::format("{:04x}:{:02x}:{:02x}.0", std::stoul(part[3].str(), nullptr, 16),
                          std::stoul(part[4].str(), nullptr, 16), std::stoul(part[5].str(), nullptr, 16));
      tests.devices.push_back({small_number(part[1].str()), part[2].str(), bus, text.source(i)});
    } else if (std::regex_search(line, part, access_line())) {
      tests.access.push_back(
          {small_number(part[1].str()), small_number(part[3].str()), part[2].str() == "CAN", text.source(i)});
    } else if (line.rfind("Running ", 0) == 0) {
      running = std::string(trimmed(std::string_view(line).substr(8)));
      if (!running.empty() && running.back() == '.') running.pop_back();
    } else if (is_p2p_title(t) || (is_nvbandwidth_title(t) && t.find("CPU(") == std::string_view::npos)) {
      BandwidthMatrix matrix;
      matrix.title = line;
      matrix.title_source = text.source(i);
      if (is_p2p_title(t)) {
        classify_p2p_title(t, matrix);
      } else {
        matrix.tool = "nvbandwidth";
        matrix.title = running.empty() ? line : running;
        matrix.p2p = 1;
        matrix.kind =
            t.find("<->") != std::string_view::npos ? MatrixKind::bidirectional : MatrixKind::unidirectional;
        matrix.row_is_source = t.find("GPU(row) <-") == std::string_view::npos;
      }
      const std::size_t next = read_matrix(text, i, matrix);
      if (!matrix.columns.empty()) tests.matrices.push_back(std::move(matrix));
      i = std::max(next, i + 1);
      continue;
    }
    ++i;
  }
  return tests;
}

}  // namespace k25
