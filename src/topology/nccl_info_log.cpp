// Pattern matching over NCCL's INFO lines, line by line.
#include "topology/nccl_info_log.hpp"

#include <algorithm>
#include <regex>

#include <fmt/format.h>

namespace k25 {
namespace {

// "host:pid:tid [dev] NCCL INFO ..." or "... NCCL WARN ..."; the host prefix is optional (NCCL_DEBUG_FILE
// logs have it, some wrappers strip it).
const std::regex& nccl_line() {
  static const std::regex re(R"(^(?:([^\s:]+):\d+:\d+\s+)?(?:\[\d+\]\s+)?NCCL (?:INFO|WARN) (.*)$)");
  return re;
}

const std::regex& channel_line() {
  // "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read", "Channel 01/1 : 0[0] -> 3[3] [send] via P2P/direct
  // pointer", older "Channel 00 : 0[3b000] -> 1[5e000] via P2P/IPC".
  static const std::regex re(
      R"(^Channel \d+(?:/\d+)? : (\d+)\[[0-9a-fA-Fx]+\] -> (\d+)\[[0-9a-fA-Fx]+\](?: \[(?:send|receive)\])? via (.+?)\s*$)");
  return re;
}

const std::regex& init_line() {
  // "ncclCommInitRank comm 0x... rank 1 nranks 8 cudaDev 1 nvmlDev 1 busId 4f000 commId 0x... - Init
  // COMPLETE"
  static const std::regex re(
      R"(\brank (\d+) nranks \d+ cudaDev (\d+)(?: nvmlDev (\d+))? busId ([0-9a-fA-F]+)\b)");
  return re;
}

const std::regex& p2p_disabled_line() {
  static const std::regex re(R"(^P2P is disabled between connected GPUs (\d+) and (\d+))");
  return re;
}

// "NCCL version 2.26.5+cuda12.9": an INFO line in recent logs, a bare line of its own in older ones.
const std::regex& version_line() {
  static const std::regex re(R"((?:^|\s)NCCL version (\S+))");
  return re;
}

const std::regex& environment_line() {
  static const std::regex re(R"(^(NCCL_[A-Z0-9_]+ set by environment to .*?)\.?\s*$)");
  return re;
}

int small_integer(const std::string& digits) {
  if (digits.empty() || digits.size() > 6) return -1;
  return std::stoi(digits);
}

}  // namespace

std::string NcclConnection::kind() const {
  const std::string first = transport.substr(0, transport.find_first_of("/ "));
  std::string upper = first;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return upper;
}

std::string bus_id_from_nccl(const std::string& nccl_bus_id) {
  // NCCL keeps a bus id as the hex digits of "DDDD:BB:DD.F" run together: domain, bus, device, function.
  if (nccl_bus_id.empty() || nccl_bus_id.size() > 12) return {};
  unsigned long long value = 0;
  try {
    std::size_t used = 0;
    value = std::stoull(nccl_bus_id, &used, 16);
    if (used != nccl_bus_id.size()) return {};
  } catch (const std::exception&) {
    return {};
  }
  const unsigned long long function = value & 0xf, device = (value >> 4) & 0xff, bus = (value >> 12) & 0xff,
                           domain = value >> 20;
  if (function > 7 || device > 0x1f || domain > 0xffffffffULL) return {};
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, bus, device, function);
}

void read_nccl_info_log(std::string_view text, const std::string& file, NcclInfoLog& log) {
  log.files.push_back(file);
  std::size_t start = 0;
  std::smatch match;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(start, std::min<std::size_t>(end - start, 4096)));
    start = end + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find("NCCL ") == std::string::npos) continue;
    if (log.nccl_version.empty() && std::regex_search(line, match, version_line()))
      log.nccl_version = match[1].str();
    if (!std::regex_search(line, match, nccl_line())) continue;
    ++log.lines;
    const std::string host = match[1].str();
    const std::string message = match[2].str();
    std::smatch part;
    if (std::regex_search(message, part, channel_line())) {
      const int from = small_integer(part[1].str()), to = small_integer(part[2].str());
      const std::string transport = part[3].str();
      if (from < 0 || to < 0) continue;
      const auto found =
          std::find_if(log.connections.begin(), log.connections.end(), [&](const NcclConnection& c) {
            return c.from_rank == from && c.to_rank == to && c.transport == transport;
          });
      if (found != log.connections.end())
        ++found->channels;
      else
        log.connections.push_back({from, to, transport, 1});
    } else if (std::regex_search(message, part, init_line())) {
      const int rank = small_integer(part[1].str());
      if (rank < 0) continue;
      NcclRankDevice& device = log.ranks[rank];
      device.cuda_dev = small_integer(part[2].str());
      device.nvml_dev = part[3].matched ? small_integer(part[3].str()) : -1;
      device.bus_id = bus_id_from_nccl(part[4].str());
      device.host = host;
    } else if (std::regex_search(message, part, p2p_disabled_line())) {
      const std::pair<int, int> pair{small_integer(part[1].str()), small_integer(part[2].str())};
      if (pair.first >= 0 && pair.second >= 0 &&
          std::find(log.p2p_disabled.begin(), log.p2p_disabled.end(), pair) == log.p2p_disabled.end())
        log.p2p_disabled.push_back(pair);
    } else if (std::regex_search(message, part, environment_line())) {
      const std::string setting = part[1].str();
      if (std::find(log.environment.begin(), log.environment.end(), setting) == log.environment.end())
        log.environment.push_back(setting);
    }
  }
}

}  // namespace k25
