// Arrays of records read from JSON another program may have written: an error names the element it came from.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace k25 {

// The member `key` of `object` (absent: empty) as a list of T; a bad element throws std::invalid_argument
// starting "key[i]: ".
template <typename T>
std::vector<T> json_list_or_empty(const nlohmann::json& object, const std::string& key) {
  const auto member = object.find(key);
  if (member == object.end()) return {};
  if (!member->is_array()) throw std::invalid_argument(fmt::format("'{}' must be an array", key));
  std::vector<T> list;
  list.reserve(member->size());
  for (std::size_t i = 0; i < member->size(); ++i) {
    try {
      list.push_back((*member)[i].template get<T>());
    } catch (const nlohmann::json::exception& e) {
      throw std::invalid_argument(fmt::format("{}[{}]: {}", key, i, e.what()));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("{}[{}]: {}", key, i, e.what()));
    }
  }
  return list;
}

}  // namespace k25
