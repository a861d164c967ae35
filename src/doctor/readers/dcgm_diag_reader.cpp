// A token scan of DCGM's diagnostic JSON: the keys that matter, in the order they come, whatever is cut.
#include "doctor/readers/dcgm_diag_reader.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace k25 {
namespace {

// One `"key" : value` of the text, where value is a string or a number; read by hand, never with a regex: a
// minified JSON is one long line.
struct Member {
  std::string key, value;
  std::size_t line = 0;
};

// The quoted string at `at` (the opening quote), a backslash dropped before what it escapes; `at` ends past
// the closing quote.
std::string quoted(std::string_view text, std::size_t& at) {
  std::string out;
  for (++at; at < text.size() && text[at] != '"'; ++at) {
    if (text[at] == '\\' && at + 1 < text.size()) ++at;
    out += text[at];
  }
  ++at;
  return out;
}

std::vector<Member> members_of(const PastedText& text) {
  std::vector<Member> members;
  for (std::size_t index = 0; index < text.lines.size(); ++index) {
    const std::string_view line = text.lines[index];
    for (std::size_t at = line.find('"'); at < line.size(); at = line.find('"', at)) {
      Member member;
      member.key = quoted(line, at);
      member.line = index;
      while (at < line.size() && (line[at] == ' ' || line[at] == '\t')) ++at;
      if (at >= line.size() || line[at] != ':') continue;
      ++at;
      while (at < line.size() && (line[at] == ' ' || line[at] == '\t')) ++at;
      if (at < line.size() && line[at] == '"') {
        member.value = quoted(line, at);
      } else {
        const std::size_t start = at;
        while (at < line.size() && line[at] >= '0' && line[at] <= '9') ++at;
        if (at == start) continue;
        member.value = std::string(line.substr(start, at - start));
      }
      members.push_back(std::move(member));
    }
  }
  return members;
}

bool is_link_test(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return name.find("pcie") != std::string::npos || name.find("nvlink") != std::string::npos ||
         name.find("nvbandwidth") != std::string::npos;
}

}  // namespace

bool has_dcgm_diag(const PastedText& text) {
  return text.text.find("test_categories") != std::string::npos &&
         (text.text.find("DCGM GPU Diagnostic") != std::string::npos ||
          text.text.find("DCGM Diagnostic") != std::string::npos);
}

DcgmDiag read_dcgm_diag(const PastedText& text) {
  DcgmDiag diag;
  std::string test;
  DcgmResult result;
  bool open = false;
  const auto flush = [&] {
    if (open && is_link_test(test) && !result.status.empty()) diag.results.push_back(result);
    open = false;
    result = DcgmResult{};
  };
  for (const Member& member : members_of(text)) {
    const std::string& key = member.key;
    const std::string& value = member.value;
    if (key == "name") {
      flush();
      test = value;
      ++diag.tests;
    } else if (key == "gpu_ids" || key == "gpu_id" || key == "entity_id") {
      flush();
      open = true;
      result.test = test;
      result.gpu = value.find(',') == std::string::npos ? small_number(value) : -1;
    } else if (key == "status") {
      open = true;
      result.test = test;
      result.status = value;
      result.source = text.source(member.line);
    } else if ((key == "warning" || key == "info") && open) {
      result.detail += (result.detail.empty() ? "" : "; ") + value;
    }
  }
  flush();
  return diag;
}

}  // namespace k25
