// A reader of the XML subset NCCL writes: a tokenizer for tags and attributes, and a walk that keeps the
// <cpu> and <pci> elements a <gpu> is nested in.
#include "doctor/readers/nccl_topology_xml.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>

#include "topology/sysfs_text.hpp"

namespace k25 {
namespace {

constexpr std::size_t kMostDepth = 64;

// Where the tokenizer stopped, and why: the reader keeps what it had read.
struct StoppedAt {
  int line = 0;
  std::string what;
};

struct Tag {
  std::string name;
  std::map<std::string, std::string> attributes;
  bool closing = false;       // </name>
  bool self_closing = false;  // <name ... />
  int line = 1;
};

class TagReader {
 public:
  TagReader(std::string_view text, int first_line) : text_(text), line_(first_line) {}

  // The next tag; false at the end of the text.
  bool next(Tag& tag) {
    for (;;) {
      skip_text();
      if (at_ >= text_.size()) return false;
      if (starts_with("<?")) {
        skip_past("?>");
      } else if (starts_with("<!--")) {
        skip_past("-->");
      } else if (starts_with("<!")) {
        fail("a DOCTYPE or CDATA section, which NCCL does not write");
      } else {
        break;
      }
    }
    tag = Tag{};
    tag.line = line_;
    advance(1);  // '<'
    if (peek() == '/') {
      tag.closing = true;
      advance(1);
    }
    tag.name = read_name("an element name");
    for (;;) {
      skip_space();
      if (at_ >= text_.size()) fail(fmt::format("the text ends inside <{}>", tag.name));
      if (peek() == '>') {
        advance(1);
        return true;
      }
      if (starts_with("/>") && !tag.closing) {
        tag.self_closing = true;
        advance(2);
        return true;
      }
      if (tag.closing) fail(fmt::format("</{}> with attributes", tag.name));
      const std::string key = read_name("an attribute name");
      skip_space();
      if (at_ >= text_.size()) fail(fmt::format("the text ends inside <{}>", tag.name));
      if (peek() != '=') fail(fmt::format("attribute {} of <{}> has no value", key, tag.name));
      advance(1);
      skip_space();
      const char quote = peek();
      if (quote != '"' && quote != '\'')
        fail(fmt::format("attribute {} of <{}> is not quoted", key, tag.name));
      advance(1);
      const std::size_t end = text_.find(quote, at_);
      if (end == std::string_view::npos) fail(fmt::format("the text ends inside <{}>", tag.name));
      std::string value = decode(text_.substr(at_, end - at_));
      advance(end - at_ + 1);
      if (!tag.attributes.emplace(key, std::move(value)).second)
        fail(fmt::format("attribute {} given twice on <{}>", key, tag.name));
    }
  }

  [[noreturn]] void fail(const std::string& what) const { throw StoppedAt{line_, what}; }
  int line() const { return line_; }

 private:
  char peek() const { return at_ < text_.size() ? text_[at_] : '\0'; }
  bool starts_with(std::string_view prefix) const { return text_.substr(at_, prefix.size()) == prefix; }
  void advance(std::size_t count) {
    for (std::size_t i = 0; i < count && at_ < text_.size(); ++i, ++at_)
      if (text_[at_] == '\n') ++line_;
  }
  void skip_space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) advance(1);
  }
  void skip_text() {
    while (at_ < text_.size() && text_[at_] != '<') {
      if (!std::isspace(static_cast<unsigned char>(text_[at_]))) fail("text outside a tag");
      advance(1);
    }
  }
  void skip_past(std::string_view end) {
    const std::size_t found = text_.find(end, at_);
    if (found == std::string_view::npos) fail(fmt::format("'{}' is missing", end));
    advance(found - at_ + end.size());
  }
  std::string read_name(const char* what) {
    const std::size_t start = at_;
    while (at_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[at_])) || text_[at_] == '_' ||
                                  text_[at_] == '-' || text_[at_] == ':' || text_[at_] == '.'))
      advance(1);
    if (at_ == start) fail(fmt::format("expected {}", what));
    return std::string(text_.substr(start, at_ - start));
  }
  static std::string decode(std::string_view raw) {
    std::string out;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '&') {
        out += raw[i];
        continue;
      }
      static const std::pair<std::string_view, char> entities[] = {
          {"&quot;", '"'}, {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&apos;", '\''}};
      bool known = false;
      for (const auto& [entity, character] : entities)
        if (raw.substr(i, entity.size()) == entity) {
          out += character;
          i += entity.size() - 1;
          known = true;
          break;
        }
      if (!known) out += '&';
    }
    return out;
  }

  std::string_view text_;
  std::size_t at_ = 0;
  int line_ = 1;
};

int attribute_integer(const std::map<std::string, std::string>& attributes, const std::string& key,
                      int otherwise) {
  const auto found = attributes.find(key);
  if (found == attributes.end()) return otherwise;
  try {
    std::size_t used = 0;
    const long value = std::stol(found->second, &used, 0);
    if (used != found->second.size() || value < -1 || value > 1'000'000) return otherwise;
    return static_cast<int>(value);
  } catch (const std::exception&) {
    return otherwise;
  }
}

std::string text_or_empty(const std::map<std::string, std::string>& attributes, const std::string& key) {
  const auto found = attributes.find(key);
  return found == attributes.end() ? std::string() : found->second;
}

struct OpenElement {
  std::string name;
  std::string bus_id;  // <pci>
  int numa_id = -1;    // <cpu>
  std::string link_speed;
  int link_width = 0;
};

}  // namespace

bool has_nccl_topology_xml(const PastedText& text) {
  return text.text.find("<system") != std::string::npos;
}

NcclTopologyXml read_nccl_topology_xml(const PastedText& pasted) {
  NcclTopologyXml topology;
  topology.file = pasted.file;
  const std::size_t begin = pasted.text.find("<system");
  if (begin == std::string::npos) return topology;
  const int first_line =
      static_cast<int>(
          std::count(pasted.text.begin(), pasted.text.begin() + static_cast<std::ptrdiff_t>(begin), '\n')) +
      1;
  TagReader reader(std::string_view(pasted.text).substr(begin), first_line);
  std::vector<OpenElement> open;
  NcclXmlGpu* current_gpu = nullptr;
  Tag tag;
  try {
    while (reader.next(tag)) {
      if (tag.closing) {
        if (open.empty() || open.back().name != tag.name)
          reader.fail(fmt::format("</{}> closes {}", tag.name,
                                  open.empty() ? "nothing" : "<" + open.back().name + ">"));
        if (tag.name == "gpu") current_gpu = nullptr;
        open.pop_back();
        if (open.empty()) return topology;  // </system>: what follows is another paste's
        continue;
      }
      if (open.empty() && topology.found) return topology;
      OpenElement element{tag.name, {}, -1, {}, 0};
      if (tag.name == "system") {
        topology.found = true;
        topology.version = text_or_empty(tag.attributes, "version");
        topology.system_source = pasted.source(static_cast<std::size_t>(tag.line - 1));
      } else if (tag.name == "cpu") {
        ++topology.cpus;
        element.numa_id = attribute_integer(tag.attributes, "numaid", -1);
      } else if (tag.name == "pci") {
        element.bus_id = to_lower(text_or_empty(tag.attributes, "busid"));
        element.link_speed = text_or_empty(tag.attributes, "link_speed");
        element.link_width = attribute_integer(tag.attributes, "link_width", 0);
      } else if (tag.name == "gpu") {
        NcclXmlGpu gpu;
        gpu.dev = attribute_integer(tag.attributes, "dev", -1);
        gpu.rank = attribute_integer(tag.attributes, "rank", -1);
        gpu.sm = text_or_empty(tag.attributes, "sm");
        gpu.source = pasted.source(static_cast<std::size_t>(tag.line - 1));
        // Its own <pci> is the innermost open one; the ones above it are bridges.
        for (auto it = open.rbegin(); it != open.rend(); ++it) {
          if (it->name == "cpu" && gpu.numa_id < 0) gpu.numa_id = it->numa_id;
          if (it->name != "pci") continue;
          if (gpu.bus_id.empty()) {
            gpu.bus_id = it->bus_id;
            gpu.link_speed = it->link_speed;
            gpu.link_width = it->link_width;
          } else {
            gpu.bridges.insert(gpu.bridges.begin(), it->bus_id);
          }
        }
        topology.gpus.push_back(std::move(gpu));
        current_gpu = tag.self_closing ? nullptr : &topology.gpus.back();
      } else if (tag.name == "nvlink" && current_gpu != nullptr) {
        current_gpu->nvlinks.push_back({to_lower(text_or_empty(tag.attributes, "target")),
                                        attribute_integer(tag.attributes, "count", 0),
                                        to_lower(text_or_empty(tag.attributes, "tclass"))});
      }
      if (!tag.self_closing) {
        if (open.size() >= kMostDepth) reader.fail(fmt::format("elements nested deeper than {}", kMostDepth));
        open.push_back(std::move(element));
      } else if (tag.name == "system") {
        return topology;
      }
    }
    if (!open.empty())
      topology.stopped = fmt::format("line {}: the text ends inside <{}>", reader.line(), open.back().name);
  } catch (const StoppedAt& stopped) {
    topology.stopped = fmt::format("line {}: {}", stopped.line, stopped.what);
  }
  return topology;
}

PathClass nccl_xml_path(const NcclXmlGpu& a, const NcclXmlGpu& b) {
  const auto links_to = [](const NcclXmlGpu& from, const std::string& target) {
    return std::any_of(from.nvlinks.begin(), from.nvlinks.end(),
                       [&](const NcclXmlNvlink& l) { return l.count > 0 && l.target == target; });
  };
  const auto links_to_switch = [](const NcclXmlGpu& gpu) {
    return std::any_of(gpu.nvlinks.begin(), gpu.nvlinks.end(),
                       [](const NcclXmlNvlink& l) { return l.count > 0 && l.target_class == "0x068000"; });
  };
  if (links_to(a, b.bus_id) || links_to(b, a.bus_id) || (links_to_switch(a) && links_to_switch(b)))
    return PathClass::nvlink;
  if (a.numa_id != b.numa_id) return PathClass::across_sockets;
  // NCCL's dump keeps one <pci> element per switch (its upstream port): GPUs below the same one are one
  // switch apart, GPUs whose chains meet higher up cross several.
  std::size_t common = 0;
  while (common < a.bridges.size() && common < b.bridges.size() && a.bridges[common] == b.bridges[common])
    ++common;
  if (common == 0) return PathClass::host_bridge;
  const std::size_t switches = (a.bridges.size() - common) + (b.bridges.size() - common) + 1;
  return switches == 1 ? PathClass::same_switch : PathClass::several_switches;
}

}  // namespace k25
