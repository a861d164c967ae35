// Writes the effective config as block-style YAML, sections in the key table's order.
#include "config/config_writer.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config_keys.hpp"

namespace k25 {
namespace {

// One JSON value as YAML; objects inside lists and lists of scalars go inline (flow style).
void emit(YAML::Emitter& out, const nlohmann::json& value, bool inline_style) {
  switch (value.type()) {
    case nlohmann::json::value_t::object: {
      if (inline_style) out << YAML::Flow;
      out << YAML::BeginMap;
      // A sequence entry reads as the README writes one: kind and dtype first, then its size and count.
      std::vector<std::string> keys;
      for (const char* first : {"kind", "dtype", "bytes_per_token", "bytes", "count", "per_layer", "name"})
        if (value.contains(first)) keys.emplace_back(first);
      for (const auto& [key, item] : value.items())
        if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
      for (const std::string& key : keys) {
        out << YAML::Key << key << YAML::Value;
        emit(out, value.at(key), inline_style);
      }
      out << YAML::EndMap;
      return;
    }
    case nlohmann::json::value_t::array: {
      bool scalars = true;
      for (const auto& item : value) scalars = scalars && !item.is_structured();
      if (inline_style || scalars) out << YAML::Flow;
      out << YAML::BeginSeq;
      for (const auto& item : value) emit(out, item, true);
      out << YAML::EndSeq;
      return;
    }
    case nlohmann::json::value_t::string:
      out << YAML::DoubleQuoted << value.get<std::string>();
      return;
    case nlohmann::json::value_t::boolean:
      out << value.get<bool>();
      return;
    case nlohmann::json::value_t::number_integer:
      out << value.get<long long>();
      return;
    case nlohmann::json::value_t::number_unsigned:
      out << value.get<unsigned long long>();
      return;
    case nlohmann::json::value_t::number_float:
      out << value.dump();  // the shortest text that reads back to the same double
      return;
    default:
      out << YAML::Null;
      return;
  }
}

}  // namespace

std::string config_to_yaml(const RunConfig& config, const std::string& header) {
  const nlohmann::json written = config_to_json(config);
  std::ostringstream text;
  std::istringstream lines(header);
  for (std::string line; std::getline(lines, line);) text << (line.empty() ? "#" : "# " + line) << "\n";
  for (const std::string& section : config_sections()) {
    const nlohmann::json& values = written.at(section);
    if (values.empty()) continue;
    YAML::Emitter out;
    out << YAML::BeginMap << YAML::Key << section << YAML::Value << YAML::BeginMap;
    for (const ConfigKey& key : config_keys()) {
      if (key.section != section || !values.contains(key.name)) continue;
      out << YAML::Key << key.name << YAML::Value;
      emit(out, values.at(key.name), false);
    }
    out << YAML::EndMap << YAML::EndMap;
    text << "\n" << out.c_str() << "\n";
  }
  return text.str();
}

}  // namespace k25
