// Typed values out of one YAML document (yaml-cpp), each failure a ConfigError naming the file, line and key.
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
  explicit ConfigReader(std::string path) : path_(std::move(path)) {}

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

  // One of `allowed` by its name in EnumNames<E>.
  template <typename E>
  E choice(const YAML::Node& node, const std::string& key, std::initializer_list<E> allowed) const {
    const std::string value = text(node, key);
    std::string names;
    for (E candidate : allowed) {
      if (value == enum_name(candidate)) return candidate;
      names += (names.empty() ? "" : ", ") + std::string(enum_name(candidate));
    }
    fail(node, key, fmt::format("'{}' is not one of: {}", value, names));
  }

 private:
  template <typename T>
  T scalar(const YAML::Node& node, const std::string& key, const char* type_name) const;
  std::string path_;
};

}  // namespace k25
