// Typed values out of one YAML document (yaml-cpp), or out of one command-line flag's text: each failure
// names where the value came from (file, line and key; or the flag) and says the same reason either way.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/enum_names.hpp"
#include "common/error.hpp"

namespace k25 {

// 1-based line of a node in its document; 0 when yaml-cpp does not know it.
int line_of(const YAML::Node& node);

class ConfigReader {
 public:
  // Values of the YAML file `path`: a failure is a ConfigError naming the file, line and key.
  explicit ConfigReader(std::string path) : path_(std::move(path)) {}
  // Values given on the command line: the key is the flag, and a failure is a UsageError "FLAG: REASON".
  static ConfigReader command_line() { return ConfigReader(); }

  const std::string& path() const { return path_; }
  [[noreturn]] void fail(const YAML::Node& node, const std::string& key, const std::string& why) const;

  int integer(const YAML::Node& node, const std::string& key, long long min, long long max) const;
  std::uint64_t unsigned_integer(const YAML::Node& node, const std::string& key) const;
  double number(const YAML::Node& node, const std::string& key, double min, double max) const;
  bool boolean(const YAML::Node& node, const std::string& key) const;
  std::string text(const YAML::Node& node, const std::string& key) const;
  std::vector<int> integer_list(const YAML::Node& node, const std::string& key, long long min,
                                long long max) const;
  std::vector<double> number_list(const YAML::Node& node, const std::string& key, double min,
                                  double max) const;
  std::vector<std::string> text_list(const YAML::Node& node, const std::string& key) const;

  // The value of E whose name is one of `names` (EnumNames<E>).
  template <NamedEnum E>
  E choice(const YAML::Node& node, const std::string& key, const std::vector<std::string>& names) const {
    const std::string value = text(node, key);
    for (const std::string& name : names)
      if (value == name) return *enum_from_name<E>(value);
    fail(node, key, fmt::format("'{}' is not one of: {}", value, join_names(names)));
  }

 private:
  ConfigReader() : from_command_line_(true) {}
  template <typename T>
  T scalar(const YAML::Node& node, const std::string& key, const char* type_name) const;
  std::string path_;
  bool from_command_line_ = false;
};

// How a range reads in messages and type strings: "0.1..86400", "1..65536" (integral values without ".0").
std::string range_text(double min, double max);

}  // namespace k25
