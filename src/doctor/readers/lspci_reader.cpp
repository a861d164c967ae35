// Reading lspci's function blocks and its -t tree, and placing the GPUs below their bridges.
#include "doctor/readers/lspci_reader.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <regex>

#include <fmt/format.h>

#include "topology/link_limits.hpp"
#include "topology/sysfs_text.hpp"

namespace k25 {
namespace {

const std::regex& function_line() {
  static const std::regex re(
      R"(^((?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+([A-Za-z0-9][^:]{1,60}?):\s+(.*?)\s*$)");
  return re;
}

const std::regex& bus_numbers() {
  static const std::regex re(
      R"(Bus: primary=([0-9a-fA-F]{2}), secondary=([0-9a-fA-F]{2}), subordinate=([0-9a-fA-F]{2}))");
  return re;
}

const std::regex& link_words() {
  static const std::regex re(R"(Speed ([0-9.]+)GT/s(?: \(([a-z]+)\))?, Width x(\d+)(?: \(([a-z]+)\))?)");
  return re;
}

const std::regex& tree_token() {
  // A root "[0000:80]", or a function "08.0" after a dash, with a bridge's bus range "-[83]" or "-[81-85]".
  static const std::regex re(
      R"(\[([0-9a-fA-F]{4}):([0-9a-fA-F]{2})\]|-([0-9a-fA-F]{2}\.[0-7])(?:-\[([0-9a-fA-F]{2})(?:-([0-9a-fA-F]{2}))?\])?)");
  return re;
}

int hex_byte(const std::string& digits) {
  return digits.empty() ? -1 : static_cast<int>(std::stoul(digits, nullptr, 16));
}

// "04:00.0" as "0000:04:00.0"; a domain of 8 digits as 4.
std::string full_bus_id(const std::string& id) {
  const std::size_t colons = static_cast<std::size_t>(std::count(id.begin(), id.end(), ':'));
  if (colons == 1) return "0000:" + to_lower(id);
  const std::size_t first = id.find(':');
  return fmt::format("{:04x}", std::stoul(id.substr(0, first), nullptr, 16)) + to_lower(id.substr(first));
}

std::string domain_of(const std::string& bus_id) {
  return bus_id.substr(0, bus_id.find(':'));
}

int bus_of(const std::string& bus_id) {
  const std::size_t first = bus_id.find(':');
  return first == std::string::npos ? -1 : hex_byte(bus_id.substr(first + 1, 2));
}

std::string port_type_of(std::string_view line) {
  const std::size_t at = line.find("Express (v");
  if (at == std::string_view::npos) return {};
  std::string_view rest = line.substr(at);
  const std::size_t close = rest.find(") ");
  if (close == std::string_view::npos) return {};
  rest = rest.substr(close + 2);
  const std::size_t end = rest.find_first_of(",(");
  return std::string(trimmed(rest.substr(0, end)));
}

LspciFunction& function_of(LspciDump& dump, const std::string& bus_id) {
  for (LspciFunction& function : dump.functions)
    if (function.bus_id == bus_id) return function;
  dump.functions.emplace_back();
  dump.functions.back().bus_id = bus_id;
  return dump.functions.back();
}

// What a -t tree's column leads to: the bus of the functions printed there and the bridge above them.
struct TreeColumn {
  std::string domain;
  int bus = -1;
  std::string parent;  // bridge bus id, empty below a root
  std::string root;    // "0000:80"
};

void read_tree_line(const PastedText& text, std::size_t index, std::map<long, TreeColumn>& columns,
                    LspciDump& dump) {
  const std::string line(text.lines[index].substr(0, 2048));
  std::optional<TreeColumn> pending;  // what the next function to the right on this line hangs below
  std::size_t last_end = 0;
  LspciFunction* last = nullptr;
  for (std::sregex_iterator it(line.begin(), line.end(), tree_token()), end; it != end; ++it) {
    const std::smatch& token = *it;
    if (token[1].matched) {
      const std::string root = to_lower(token[1].str() + ":" + token[2].str());
      pending = TreeColumn{to_lower(token[1].str()), hex_byte(token[2].str()), "", root};
      last_end = static_cast<std::size_t>(token.position(0) + token.length(0));
      continue;
    }
    const long column = static_cast<long>(token.position(3));
    if (pending) columns[column] = *pending;
    const auto at = columns.find(column);
    if (at == columns.end() || at->second.bus < 0) {
      pending.reset();
      continue;
    }
    const TreeColumn place = at->second;
    const std::string bus_id = fmt::format("{}:{:02x}:{}", place.domain, place.bus, to_lower(token[3].str()));
    LspciFunction& function = function_of(dump, bus_id);
    function.parent = place.parent;
    function.root_bus = place.root;
    if (function.header.file.empty()) function.header = text.source(index);
    if (token[4].matched) {
      function.bridge = true;
      function.secondary = hex_byte(token[4].str());
      function.subordinate = token[5].matched ? hex_byte(token[5].str()) : function.secondary;
      pending = TreeColumn{place.domain, function.secondary, bus_id, place.root};
    } else {
      pending.reset();
    }
    last = &function;
    last_end = static_cast<std::size_t>(token.position(0) + token.length(0));
  }
  if (last != nullptr && last->name.empty() && last_end < line.size())
    last->name = std::string(trimmed(std::string_view(line).substr(last_end)));
}

bool is_tree_line(std::string_view line) {
  const std::string_view t = trimmed(line);
  return (t.rfind("-[", 0) == 0 || t.rfind("-+-[", 0) == 0 || t.rfind("+-[", 0) == 0 ||
          t.rfind("\\-[", 0) == 0 || t.rfind("|", 0) == 0 || t.rfind("+-", 0) == 0 ||
          t.rfind("\\-", 0) == 0) &&
         (t.find(".0") != std::string_view::npos || t.find("-[") != std::string_view::npos);
}

int port_type_code(const std::string& words) {
  if (words == "Root Port") return 4;
  if (words == "Upstream Port") return 5;
  if (words == "Downstream Port") return 6;
  if (words == "Endpoint") return 0;
  if (words == "Legacy Endpoint") return 1;
  return -1;
}

}  // namespace

bool is_nvidia_gpu(const LspciFunction& function) {
  if (function.name.find("NVIDIA") == std::string::npos) return false;
  if (!function.class_words.empty())
    return function.class_words.find("VGA compatible controller") != std::string::npos ||
           function.class_words.find("3D controller") != std::string::npos ||
           function.class_words == "Display controller";
  if (function.bridge) return false;
  for (const char* other : {"Audio", "USB", "Serial", "UCSI", "Bridge", "bridge", "NVSwitch"})
    if (function.name.find(other) != std::string::npos) return false;
  return true;
}

bool has_lspci(const PastedText& text) {
  std::smatch part;
  int functions = 0;
  for (std::string_view line : text.lines) {
    if (line.size() < 8) continue;
    if (is_tree_line(line) && line.find("-[") != std::string_view::npos &&
        line.find(']') != std::string_view::npos && line.find(".0") != std::string_view::npos)
      return true;
    if (!(std::isxdigit(static_cast<unsigned char>(line[0])) != 0)) continue;
    const std::string copy(line.substr(0, 512));
    if (std::regex_match(copy, part, function_line()) && ++functions >= 1 &&
        (part[2].str().find("bridge") != std::string::npos ||
         part[2].str().find("controller") != std::string::npos))
      return true;
  }
  return false;
}

LspciDump read_lspci(const PastedText& text) {
  LspciDump dump;
  std::map<long, TreeColumn> columns;
  LspciFunction* current = nullptr;
  std::smatch part;
  for (std::size_t i = 0; i < text.lines.size(); ++i) {
    const std::string_view view = text.lines[i];
    if (view.empty()) {
      current = nullptr;
      continue;
    }
    const bool indented = view.front() == ' ' || view.front() == '\t';
    const std::string line(view.substr(0, 2048));
    if (!indented && std::isxdigit(static_cast<unsigned char>(line[0])) != 0 &&
        std::regex_match(line, part, function_line())) {
      LspciFunction& function = function_of(dump, full_bus_id(part[1].str()));
      function.class_words = part[2].str();
      function.name = part[3].str();
      function.bridge = function.bridge || function.class_words.find("bridge") != std::string::npos;
      function.header = text.source(i);
      current = &function;
      continue;
    }
    if (is_tree_line(view)) {
      dump.tree = true;
      current = nullptr;
      read_tree_line(text, i, columns, dump);
      continue;
    }
    if (current == nullptr || !indented) continue;
    dump.verbose = true;
    const std::string_view t = trimmed(view);
    if (std::regex_search(line, part, bus_numbers())) {
      current->bridge = true;
      current->primary = hex_byte(part[1].str());
      current->secondary = hex_byte(part[2].str());
      current->subordinate = hex_byte(part[3].str());
    } else if (t.rfind("NUMA node:", 0) == 0) {
      current->numa_node = small_number(trimmed(t.substr(10)));
    } else if (t.rfind("Capabilities:", 0) == 0) {
      if (t.find("<access denied>") != std::string_view::npos) current->access_denied = true;
      const std::string type = port_type_of(t);
      if (!type.empty()) current->port_type = type;
    } else if (t.rfind("LnkCap:", 0) == 0 && std::regex_search(line, part, link_words())) {
      current->cap_gen = pcie_generation_of_speed(part[1].str());
      current->cap_width = small_number(part[3].str());
    } else if (t.rfind("LnkSta:", 0) == 0 && std::regex_search(line, part, link_words())) {
      current->sta_gen = pcie_generation_of_speed(part[1].str());
      current->sta_width = small_number(part[3].str());
      current->downgraded = part[2].str() == "downgraded" || part[4].str() == "downgraded";
      current->link_status = text.source(i);
    } else if (t.rfind("ACSCtl:", 0) == 0) {
      current->acs_control = std::string(trimmed(t.substr(7)));
      current->acs = text.source(i);
    }
  }
  return dump;
}

PciTree lspci_pci_tree(const LspciDump& dump) {
  PciTree tree;
  std::map<std::string, const LspciFunction*> by_id;
  for (const LspciFunction& function : dump.functions) by_id[function.bus_id] = &function;
  // The bridge whose secondary bus is `bus` in `domain`, from -v's bus numbers.
  const auto bridge_onto = [&](const std::string& domain, int bus) -> const LspciFunction* {
    for (const LspciFunction& function : dump.functions)
      if (function.bridge && function.secondary == bus && domain_of(function.bus_id) == domain)
        return &function;
    return nullptr;
  };
  const auto parent_of = [&](const LspciFunction& function) -> const LspciFunction* {
    if (!function.parent.empty()) {
      const auto found = by_id.find(function.parent);
      return found == by_id.end() ? nullptr : found->second;
    }
    if (!function.root_bus.empty()) return nullptr;  // the tree put it right below its root
    return bridge_onto(domain_of(function.bus_id), bus_of(function.bus_id));
  };
  for (const LspciFunction& function : dump.functions) {
    if (!is_nvidia_gpu(function)) continue;
    PciGpu gpu;
    gpu.node.bus_id = function.bus_id;
    gpu.node.link = {function.sta_gen, function.sta_width, function.cap_gen, function.cap_width};
    gpu.numa_node = function.numa_node;
    std::string root = function.root_bus;
    const LspciFunction* at = &function;
    for (int depth = 0; depth < 32; ++depth) {
      const LspciFunction* parent = parent_of(*at);
      if (parent == nullptr) break;
      gpu.path.insert(gpu.path.begin(), parent->bus_id);
      PciNode& bridge = tree.bridges[parent->bus_id];
      bridge.bus_id = parent->bus_id;
      bridge.link = {parent->sta_gen, parent->sta_width, parent->cap_gen, parent->cap_width};
      bridge.config.port.code = port_type_code(parent->port_type);
      if (!parent->root_bus.empty()) root = parent->root_bus;
      at = parent;
    }
    if (root.empty() && (dump.verbose || !gpu.path.empty())) {
      // No tree: the root bus is the primary bus of the top bridge (or the GPU's own bus).
      const int top_bus = at->bridge && at->primary >= 0 ? at->primary : bus_of(at->bus_id);
      root = fmt::format("{}:{:02x}", domain_of(at->bus_id), top_bus);
    }
    if (!root.empty()) gpu.host_bridge = "pci" + root;
    tree.gpus.push_back(std::move(gpu));
  }
  std::sort(tree.gpus.begin(), tree.gpus.end(),
            [](const PciGpu& a, const PciGpu& b) { return a.node.bus_id < b.node.bus_id; });
  return tree;
}

}  // namespace k25
