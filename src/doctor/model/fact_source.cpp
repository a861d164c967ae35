// A fact's source and its JSON form.
#include "doctor/model/fact_source.hpp"

#include <fmt/format.h>

#include "common/json_integer.hpp"

namespace k25 {

std::string FactSource::where() const {
  return line > 0 ? fmt::format("{}:{}", file, line) : file;
}

FactSource fact_source(const std::string& file, int line, std::string_view text) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  std::string kept(text.substr(0, kMostEvidenceChars));
  if (text.size() > kMostEvidenceChars) kept += "...";
  return {file, line, std::move(kept)};
}

void to_json(nlohmann::json& j, const FactSource& s) {
  j = nlohmann::json{{"file", s.file}, {"line", s.line}, {"text", s.text}};
}

void from_json(const nlohmann::json& j, FactSource& s) {
  s.file = j.value("file", "");
  s.line = json_integer_or(j, "line", 0, 0, 1 << 30);
  s.text = j.value("text", "");
}

}  // namespace k25
