// Where a fact of the node model was read: a file and line of what was pasted (the evidence a verdict cites),
// or this host's sysfs and NVML.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace k25 {

struct FactSource {
  std::string file;  // the file as given; "sysfs" or "NVML" for this host's own
  int line = 0;      // 1-based line of the file; 0 where the fact is no one line's (sysfs, a whole document)
  std::string text;  // that line as it was, cut at kMostEvidenceChars

  // "topo.txt:3", "sysfs".
  std::string where() const;
  bool operator==(const FactSource&) const = default;
};

inline constexpr std::size_t kMostEvidenceChars = 240;

// A source at `file`:`line` whose text is `text` without surrounding white space, cut where it is long.
FactSource fact_source(const std::string& file, int line, std::string_view text);

void to_json(nlohmann::json& j, const FactSource& s);
void from_json(const nlohmann::json& j, FactSource& s);

}  // namespace k25
