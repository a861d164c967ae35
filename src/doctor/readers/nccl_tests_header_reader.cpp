// Reading nccl-tests' rank lines.
#include "doctor/readers/nccl_tests_header_reader.hpp"

#include <regex>

#include <fmt/format.h>

namespace k25 {
namespace {

const std::regex& rank_line() {
  static const std::regex re(
      R"(^#\s*Rank\s+(\d+)(?:\s+Group\s+\d+)?\s+Pid\s+(\d+)\s+on\s+(\S+)\s+device\s+(\d+)\s+\[([^\]]*)\]\s*(.*?)\s*$)");
  return re;
}

const std::regex& library_words() {
  static const std::regex re(R"(nccl-library=(\d+))");
  return re;
}

// "0x21", "0000:21:00", "00000000:21:00.0" as a bus id.
std::string bus_of_bracket(const std::string& bracket) {
  static const std::regex short_form(R"(^0x([0-9a-fA-F]{1,2})$)");
  static const std::regex long_form(
      R"(^(?:([0-9a-fA-F]{4,8}):)?([0-9a-fA-F]{2}):([0-9a-fA-F]{2})(?:\.([0-7]))?$)");
  std::smatch part;
  if (std::regex_match(bracket, part, short_form))
    return fmt::format("0000:{:02x}:00.0", std::stoi(part[1].str(), nullptr, 16));
  if (std::regex_match(bracket, part, long_form)) {
    const std::string domain = part[1].matched ? part[1].str() : "0000";
    return fmt::format("{:04x}:{:02x}:{:02x}.{}", std::stoul(domain, nullptr, 16),
                       std::stoi(part[2].str(), nullptr, 16), std::stoi(part[3].str(), nullptr, 16),
                       part[4].matched ? part[4].str() : "0");
  }
  return {};
}

}  // namespace

bool has_nccl_tests_header(const PastedText& text) {
  for (std::string_view line : text.lines) {
    const std::string_view t = trimmed(line);
    if (t.rfind("#", 0) == 0 && t.find("Rank") != std::string_view::npos &&
        t.find(" device ") != std::string_view::npos && t.find(" Pid ") != std::string_view::npos)
      return true;
  }
  return false;
}

NcclTestsHeader read_nccl_tests_header(const PastedText& text) {
  NcclTestsHeader header;
  for (std::size_t i = 0; i < text.lines.size(); ++i) {
    const std::string line(trimmed(text.lines[i]).substr(0, 1024));
    if (line.rfind("#", 0) != 0) continue;
    std::smatch part;
    if (std::regex_search(line, part, library_words()) && header.nccl_version.empty()) {
      header.nccl_version = nccl_version_of_code(small_number(part[1].str()));
      if (!header.nccl_version.empty()) header.version_source = text.source(i);
      continue;
    }
    if (!std::regex_match(line, part, rank_line())) continue;
    NcclTestsDevice device;
    device.rank = small_number(part[1].str());
    device.pid = small_number(part[2].str());
    device.host = part[3].str();
    device.cuda_index = small_number(part[4].str());
    device.bus_id = bus_of_bracket(part[5].str());
    device.name = part[6].str();
    device.source = text.source(i);
    if (device.rank >= 0 && device.cuda_index >= 0) header.devices.push_back(std::move(device));
  }
  return header;
}

std::string nccl_version_of_code(int code) {
  if (code < 20000 || code > 99999) return {};
  return fmt::format("{}.{}.{}", code / 10000, (code % 10000) / 100, code % 100);
}

}  // namespace k25
