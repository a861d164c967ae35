// Typed YAML values with file:line:key (or flag) messages.
#include "config/config_reader.hpp"

namespace k25 {

int line_of(const YAML::Node& node) {
  return node.Mark().line >= 0 ? node.Mark().line + 1 : 0;
}

std::string range_text(double min, double max) {
  return fmt::format("{}..{}", min, max);
}

void ConfigReader::fail(const YAML::Node& node, const std::string& key, const std::string& why) const {
  if (from_command_line_) throw UsageError(fmt::format("{}: {}", key, why));
  throw ConfigError(path_, line_of(node), key, why);
}

template <typename T>
T ConfigReader::scalar(const YAML::Node& node, const std::string& key, const char* type_name) const {
  if (!node.IsScalar()) fail(node, key, fmt::format("expected {}", type_name));
  try {
    return node.as<T>();
  } catch (const YAML::BadConversion&) {
    fail(node, key, fmt::format("expected {}, got '{}'", type_name, node.Scalar()));
  }
}

int ConfigReader::integer(const YAML::Node& node, const std::string& key, long long min,
                          long long max) const {
  const auto value = scalar<long long>(node, key, "an integer");
  if (value < min || value > max) fail(node, key, fmt::format("{} is outside {}..{}", value, min, max));
  return static_cast<int>(value);
}

std::uint64_t ConfigReader::unsigned_integer(const YAML::Node& node, const std::string& key) const {
  return scalar<std::uint64_t>(node, key, "a non-negative integer");
}

double ConfigReader::number(const YAML::Node& node, const std::string& key, double min, double max) const {
  const auto value = scalar<double>(node, key, "a number");
  if (!(value >= min && value <= max))
    fail(node, key, fmt::format("{} is outside {}", value, range_text(min, max)));
  return value;
}

bool ConfigReader::boolean(const YAML::Node& node, const std::string& key) const {
  return scalar<bool>(node, key, "true or false");
}

std::string ConfigReader::text(const YAML::Node& node, const std::string& key) const {
  return scalar<std::string>(node, key, "a string");
}

std::vector<int> ConfigReader::integer_list(const YAML::Node& node, const std::string& key, long long min,
                                            long long max) const {
  if (!node.IsSequence() || node.size() == 0) fail(node, key, "expected a non-empty list of integers");
  std::vector<int> values;
  for (std::size_t i = 0; i < node.size(); ++i) values.push_back(integer(node[i], key, min, max));
  return values;
}

std::vector<double> ConfigReader::number_list(const YAML::Node& node, const std::string& key, double min,
                                              double max) const {
  if (!node.IsSequence() || node.size() == 0) fail(node, key, "expected a non-empty list of numbers");
  std::vector<double> values;
  for (std::size_t i = 0; i < node.size(); ++i) values.push_back(number(node[i], key, min, max));
  return values;
}

std::vector<std::string> ConfigReader::text_list(const YAML::Node& node, const std::string& key) const {
  if (!node.IsSequence() || node.size() == 0) fail(node, key, "expected a non-empty list");
  std::vector<std::string> values;
  for (std::size_t i = 0; i < node.size(); ++i) values.push_back(text(node[i], key));
  return values;
}

}  // namespace k25
