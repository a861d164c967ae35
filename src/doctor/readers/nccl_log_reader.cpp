// Pattern matching over NCCL's INFO lines, line by line, with each printing thread's communicator in hand.
#include "doctor/readers/nccl_log_reader.hpp"

#include <algorithm>
#include <regex>
#include <set>

#include <fmt/format.h>

namespace k25 {
namespace {

constexpr std::size_t kMostLineChars = 4096;
constexpr std::size_t kMostWarnings = 20;

// The "host:pid:tid [dev] " right before "NCCL INFO" (the [dev] is missing in some versions).
const std::regex& thread_prefix() {
  static const std::regex re(R"(([^\s:\]\[]+):(\d+):(\d+)\s+(?:\[\d+\]\s*)?$)");
  return re;
}

const std::regex& channel_line() {
  static const std::regex re(
      R"(^(?:Channel|Ring) \d+(?:/\d+)? : (\d+)(?:\[([0-9a-fA-Fx]+)\])? -> (\d+)(?:\[([0-9a-fA-Fx]+)\])?(?: \[(?:send|receive)\])? via (.+?)\s*$)");
  return re;
}

// "Channel 00/02 :    0   1   2   3", "Ring 00 :    0   1", "Ring 02 : 2 -> 0 -> 1".
const std::regex& ring_order_line() {
  static const std::regex re(R"(^(?:Channel|Ring) \d+(?:/\d+)? :\s+\d+(?:\s+(?:->\s+)?\d+)*\s*$)");
  return re;
}

const std::regex& init_line() {
  static const std::regex re(
      R"(\bcomm (0x[0-9a-fA-F]+) rank (\d+) nranks (\d+) cudaDev (\d+)(?: nvmlDev (\d+))?(?: busId ([0-9a-fA-F]+))?(?: commId (0x[0-9a-fA-F]+))?.*\bInit (COMPLETE|START))");
  return re;
}

// NCCL 2.19 and later before the channel lines: "comm 0x5b0bc60 rank 3 nRanks 4 nNodes 2 localRanks 2 ...".
const std::regex& announce_line() {
  static const std::regex re(R"(^comm (0x[0-9a-fA-F]+) rank (\d+) nRanks (\d+) )");
  return re;
}

const std::regex& p2p_disabled_line() {
  static const std::regex re(R"(P2P is disabled between connected GPUs (\d+) and (\d+))");
  return re;
}

const std::regex& environment_line() {
  static const std::regex re(R"(^(NCCL_[A-Z0-9_]+) set by environment to (.*?)\.?\s*$)");
  return re;
}

const std::regex& version_words() {
  static const std::regex re(R"(NCCL version (\d+\.\d+\.\d+\S*))");
  return re;
}

const std::regex& graph_row() {
  static const std::regex re(R"(^GPU/([0-9A-Fa-f-]+) :(.*)$)");
  return re;
}

const std::regex& graph_entry() {
  static const std::regex re(R"(GPU/([0-9A-Fa-f-]+) \((\d+)/([0-9.]+)/([A-Z0-9]+)\))");
  return re;
}

const std::regex& shared_memory_line() {
  static const std::regex re(
      R"((?:cudaArch (\d+) )?ncclMaxSharedMem (\d+) exceeds device/fn maxSharedMem (\d+))");
  return re;
}

// The messages NCCL prints that a bare line (its prefix cut off in the paste) is recognized by.
bool looks_like_bare_message(std::string_view line) {
  for (std::string_view start : {"Channel ", "Ring ", "NCCL version ", "comm 0x", "P2P is disabled", "GPU/",
                                 "Trees ", "ncclCommInit", "ncclMaxSharedMem", "cudaDriverVersion "})
    if (line.rfind(start, 0) == 0) return true;
  return line.find(" set by environment to ") != std::string_view::npos && line.rfind("NCCL_", 0) == 0;
}

int number(const std::ssub_match& digits) {
  return digits.matched
             ? small_number(std::string_view(&*digits.first, static_cast<std::size_t>(digits.length())))
             : -1;
}

// "host:pid" of a thread's "host:pid:tid" (a process's threads initialize one communicator together where
// NCCL printed no Init line to tell them apart); other tags as they are.
std::string process_of(const std::string& thread) {
  const std::size_t last = thread.rfind(':');
  return last == std::string::npos || std::count(thread.begin(), thread.end(), ':') != 2
             ? thread
             : thread.substr(0, last);
}

// One Init or announce line of one process: an instance of a communicator.
struct CommInstance {
  std::string pointer;  // "host:pid:0x..."
  std::string comm_id;  // "0x..." where printed
  NcclRankGpu rank;
  int nranks = 0;
  bool complete = false;
  int rings = 0, trees = 0;
};

// A channel line before its communicator is known.
struct RawConnection {
  std::string thread;
  int instance = -1;
  NcclRankConnection connection;
};

class LogReader {
 public:
  explicit LogReader(NcclLog& log) : log_(log) {}

  void line(const PastedText& text, std::size_t index) {
    std::string_view view = text.lines[index];
    if (view.size() > kMostLineChars) view = view.substr(0, kMostLineChars);
    if (view.find("NCCL") == std::string_view::npos && view.find("GPU/") == std::string_view::npos &&
        view.find(" via ") == std::string_view::npos && view.find("comm 0x") == std::string_view::npos &&
        view.find("Ring ") == std::string_view::npos && view.find("Channel ") == std::string_view::npos &&
        view.find("Trees") == std::string_view::npos &&
        view.find("cudaDriverVersion") == std::string_view::npos)
      return;
    std::string thread, host, message;
    bool warn = false;
    std::size_t at = view.find("NCCL INFO ");
    if (at == std::string_view::npos) {
      at = view.find("NCCL WARN ");
      warn = at != std::string_view::npos;
    }
    if (at != std::string_view::npos) {
      const std::string before(view.substr(0, at));
      message = std::string(trimmed(view.substr(at + 10)));
      std::smatch prefix;
      if (std::regex_search(before, prefix, thread_prefix())) {
        host = prefix[1].str();
        thread = fmt::format("{}:{}:{}", host, prefix[2].str(), prefix[3].str());
        ++log_.hosts[host];
      } else {
        thread = std::string(trimmed(before));
        if (thread.empty()) ++log_.unprefixed;
      }
    } else {
      const std::string_view bare = trimmed(view);
      std::smatch version;
      const std::string copy(bare);
      if (std::regex_search(copy, version, version_words()) && copy.rfind("NCCL version", 0) == 0) {
        add_version(version[1].str(), text.source(index));
        ++log_.lines;
        return;
      }
      if (!looks_like_bare_message(bare)) return;
      message = copy;
      ++log_.unprefixed;
    }
    ++log_.lines;
    const FactSource source = text.source(index);
    if (warn) {
      if (log_.seen.warnings.size() < kMostWarnings) log_.seen.warnings.push_back(source);
    }
    read_message(message, thread, host, source);
  }

  void finish() {
    group_communicators();
    std::map<std::tuple<std::string, int, int, std::string>, std::size_t> seen;
    for (RawConnection& raw : connections_) {
      NcclRankConnection& connection = raw.connection;
      if (raw.instance >= 0) {
        connection.communicator = group_of_[static_cast<std::size_t>(raw.instance)];
      } else {
        connection.communicator = raw.thread.empty()
                                      ? "(unprefixed lines)"
                                      : fmt::format("no Init line ({})", process_of(raw.thread));
      }
      const auto key = std::make_tuple(connection.communicator, connection.from_rank, connection.to_rank,
                                       connection.transport.name);
      const auto found = seen.find(key);
      if (found != seen.end()) {
        ++log_.seen.connections[found->second].channels;
        continue;
      }
      seen.emplace(key, log_.seen.connections.size());
      connection.channels = 1;
      log_.seen.connections.push_back(std::move(connection));
    }
  }

 private:
  void add_version(const std::string& version, const FactSource& source) {
    const bool known = std::any_of(log_.seen.versions.begin(), log_.seen.versions.end(),
                                   [&](const NcclVersionSeen& v) { return v.version == version; });
    if (!known) log_.seen.versions.push_back({version, source});
  }

  void read_message(const std::string& message, const std::string& thread, const std::string& host,
                    const FactSource& source) {
    std::smatch part;
    if (message.find(" via ") != std::string::npos && std::regex_search(message, part, channel_line())) {
      RawConnection raw;
      raw.thread = thread;
      const auto current = current_.find(thread);
      raw.instance = current == current_.end() ? -1 : current->second;
      NcclRankConnection& connection = raw.connection;
      connection.from_rank = number(part[1]);
      connection.to_rank = number(part[3]);
      connection.from_device = part[2].str();
      connection.to_device = part[4].str();
      connection.transport = {nccl_transport_kind(part[5].str()), part[5].str()};
      connection.source = source;
      if (connection.from_rank < 0 || connection.to_rank < 0) return;
      if (raw.instance < 0) pending_[thread].push_back(connections_.size());
      connections_.push_back(std::move(raw));
      return;
    }
    if (std::regex_search(message, part, init_line())) {
      CommInstance instance;
      instance.pointer = fmt::format("{}:{}", thread, part[1].str());
      instance.comm_id = part[7].str();
      instance.rank = {
          number(part[2]), bus_id_from_nccl(part[6].str()), number(part[4]), number(part[5]), host, source};
      instance.nranks = number(part[3]);
      instance.complete = part[8].str() == "COMPLETE";
      const int index = instance_for(instance);
      if (instances_[static_cast<std::size_t>(index)].complete) {
        // Lines printed before it on this thread were its; the thread's next lines are the next one's.
        for (std::size_t raw : pending_[thread]) connections_[raw].instance = index;
        pending_[thread].clear();
        instances_[static_cast<std::size_t>(index)].rings += pending_rings_[thread];
        instances_[static_cast<std::size_t>(index)].trees += pending_trees_[thread];
        pending_rings_.erase(thread);
        pending_trees_.erase(thread);
        current_.erase(thread);
      } else {
        current_[thread] = index;
      }
      return;
    }
    if (std::regex_search(message, part, announce_line())) {
      CommInstance instance;
      instance.pointer = fmt::format("{}:{}", thread, part[1].str());
      instance.rank.rank = number(part[2]);
      instance.rank.host = host;
      instance.rank.source = source;
      instance.nranks = number(part[3]);
      current_[thread] = instance_for(instance);
      return;
    }
    if (std::regex_search(message, part, ring_order_line())) {
      if (CommInstance* instance = current_instance(thread))
        ++instance->rings;
      else
        ++pending_rings_[thread];
      return;
    }
    if (message.rfind("Trees", 0) == 0 || message.rfind("Tree ", 0) == 0) {
      if (CommInstance* instance = current_instance(thread))
        ++instance->trees;
      else
        ++pending_trees_[thread];
      return;
    }
    if (std::regex_search(message, part, p2p_disabled_line())) {
      NcclP2pDisabled disabled{number(part[1]), number(part[2]), host, source};
      const bool known =
          std::any_of(log_.p2p_disabled.begin(), log_.p2p_disabled.end(), [&](const NcclP2pDisabled& d) {
            return d.dev_a == disabled.dev_a && d.dev_b == disabled.dev_b && d.host == disabled.host;
          });
      if (!known && disabled.dev_a >= 0 && disabled.dev_b >= 0) log_.p2p_disabled.push_back(disabled);
      return;
    }
    if (std::regex_search(message, part, environment_line())) {
      const std::string name = part[1].str(), value = part[2].str();
      const bool known =
          std::any_of(log_.seen.settings.begin(), log_.seen.settings.end(),
                      [&](const NcclSetting& s) { return s.name == name && s.value == value; });
      if (!known) log_.seen.settings.push_back({name, value, source});
      return;
    }
    if (message.find("NCCL version") != std::string::npos &&
        std::regex_search(message, part, version_words())) {
      add_version(part[1].str(), source);
      return;
    }
    if (message.rfind("cudaDriverVersion ", 0) == 0) {
      const int code = small_number(trimmed(std::string_view(message).substr(18)));
      if (code > 0) log_.cuda_driver_version = fmt::format("{}.{}", code / 1000, (code % 1000) / 10);
      return;
    }
    if (message.find("ncclMaxSharedMem") != std::string::npos &&
        std::regex_search(message, part, shared_memory_line())) {
      log_.seen.shared_memory.push_back({number(part[2]), number(part[3]), number(part[1]), source});
      return;
    }
    if (message.rfind("GPU/", 0) == 0 && std::regex_search(message, part, graph_row())) {
      const std::string from = bus_id_from_nccl(part[1].str());
      const std::string rest = part[2].str();
      for (std::sregex_iterator it(rest.begin(), rest.end(), graph_entry()), end; it != end; ++it) {
        const std::string to = bus_id_from_nccl((*it)[1].str());
        if (from.empty() || to.empty() || to == from) continue;
        NcclGraphPath path;
        path.from_bus = from;
        path.to_bus = to;
        path.type = (*it)[4].str();
        path.path = path_class_from_word(path.type);
        path.bandwidth_gbps = decimal_number((*it)[3].str());
        path.source = source;
        log_.graph_paths.push_back(std::move(path));
      }
    }
  }

  CommInstance* current_instance(const std::string& thread) {
    const auto current = current_.find(thread);
    return current == current_.end() ? nullptr : &instances_[static_cast<std::size_t>(current->second)];
  }

  // The instance a line names (its comm pointer in its process), made where new; an Init line fills in what
  // an announce line left out.
  int instance_for(const CommInstance& line) {
    for (std::size_t i = 0; i < instances_.size(); ++i) {
      CommInstance& known = instances_[i];
      if (known.pointer != line.pointer) continue;
      if (!line.rank.bus_id.empty() || line.rank.cuda_dev >= 0) {
        const FactSource first = known.rank.source;
        known.rank = line.rank;
        if (!first.file.empty()) known.rank.source = first;
      }
      if (!line.comm_id.empty()) known.comm_id = line.comm_id;
      known.complete = known.complete || line.complete;
      return static_cast<int>(i);
    }
    instances_.push_back(line);
    return static_cast<int>(instances_.size()) - 1;
  }

  // Instances into communicators: by commId, else by size in order, a rank seen again opening the next one.
  void group_communicators() {
    std::map<std::string, std::size_t> by_key;
    std::vector<std::set<int>> ranks_taken;
    group_of_.assign(instances_.size(), "");
    std::map<int, int> opened_of_size;
    for (std::size_t i = 0; i < instances_.size(); ++i) {
      const CommInstance& instance = instances_[i];
      std::string key;
      if (!instance.comm_id.empty()) {
        key = "commId " + instance.comm_id;
      } else {
        std::size_t found = log_.seen.communicators.size();
        for (std::size_t c = 0; c < log_.seen.communicators.size(); ++c) {
          const NcclCommunicator& communicator = log_.seen.communicators[c];
          if (communicator.key.rfind("commId ", 0) == 0 || communicator.nranks != instance.nranks) continue;
          if (ranks_taken[c].count(instance.rank.rank) != 0) continue;
          found = c;
          break;
        }
        key = found < log_.seen.communicators.size()
                  ? log_.seen.communicators[found].key
                  : fmt::format("communicator {} of nranks {}", ++opened_of_size[instance.nranks],
                                instance.nranks);
      }
      auto [it, added] = by_key.emplace(key, log_.seen.communicators.size());
      if (added) {
        NcclCommunicator communicator;
        communicator.key = key;
        communicator.nranks = instance.nranks;
        log_.seen.communicators.push_back(std::move(communicator));
        ranks_taken.emplace_back();
      }
      NcclCommunicator& communicator = log_.seen.communicators[it->second];
      ranks_taken[it->second].insert(instance.rank.rank);
      communicator.ranks.push_back(instance.rank);
      communicator.complete = communicator.complete || instance.complete;
      communicator.rings += instance.rings;
      communicator.trees += instance.trees;
      group_of_[i] = key;
    }
    for (NcclCommunicator& communicator : log_.seen.communicators)
      std::sort(communicator.ranks.begin(), communicator.ranks.end(),
                [](const NcclRankGpu& a, const NcclRankGpu& b) { return a.rank < b.rank; });
  }

  NcclLog& log_;
  std::vector<CommInstance> instances_;
  std::vector<std::string> group_of_;
  std::vector<RawConnection> connections_;
  std::map<std::string, int> current_;                       // thread -> the instance it is initializing
  std::map<std::string, std::vector<std::size_t>> pending_;  // thread -> its connections before any Init line
  std::map<std::string, int> pending_rings_, pending_trees_;  // thread -> its ring and tree lines, likewise
};

}  // namespace

bool has_nccl_log(const PastedText& text) {
  for (std::string_view line : text.lines) {
    if (line.find("NCCL INFO") != std::string_view::npos || line.find("NCCL WARN") != std::string_view::npos)
      return true;
    const std::string_view bare = trimmed(line);
    if (bare.rfind("NCCL version ", 0) == 0) return true;
    if ((bare.rfind("Channel ", 0) == 0 || bare.rfind("Ring ", 0) == 0) &&
        bare.find(" via ") != std::string_view::npos && bare.find(" -> ") != std::string_view::npos)
      return true;
  }
  return false;
}

NcclLog read_nccl_log(const PastedText& text) {
  NcclLog log;
  log.file = text.file;
  LogReader reader(log);
  for (std::size_t i = 0; i < text.lines.size(); ++i) reader.line(text, i);
  reader.finish();
  return log;
}

std::string bus_id_from_nccl(const std::string& nccl_bus_id) {
  // NCCL keeps a bus id as the hex digits of "DDDD:BB:DD.F" run together: domain, bus, device, function. Its
  // GRAPH table of later versions writes the domain apart: "0-4f000".
  std::string digits = nccl_bus_id;
  unsigned long long domain_part = 0;
  const std::size_t dash = digits.find('-');
  if (dash != std::string::npos) {
    if (dash == 0 || dash > 8) return {};
    try {
      std::size_t used = 0;
      domain_part = std::stoull(digits.substr(0, dash), &used, 16);
      if (used != dash) return {};
    } catch (const std::exception&) {
      return {};
    }
    digits = digits.substr(dash + 1);
  }
  if (digits.empty() || digits.size() > 12) return {};
  unsigned long long value = 0;
  try {
    std::size_t used = 0;
    value = std::stoull(digits, &used, 16);
    if (used != digits.size()) return {};
  } catch (const std::exception&) {
    return {};
  }
  const unsigned long long function = value & 0xf, device = (value >> 4) & 0xff, bus = (value >> 12) & 0xff;
  const unsigned long long domain = dash != std::string::npos ? domain_part : value >> 20;
  if (function > 7 || device > 0x1f || domain > 0xffffffffULL) return {};
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, bus, device, function);
}

bool bracket_is_bus_id(const std::string& bracket) {
  if (bracket.size() >= 4) return true;
  return std::any_of(bracket.begin(), bracket.end(),
                     [](char c) { return (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == 'x'; });
}

}  // namespace k25
