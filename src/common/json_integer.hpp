// Integers read from JSON that another program may have written: type- and range-checked, because
// nlohmann's get<int>() on a float such as 1e300 is undefined behaviour, not an exception.
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace k25 {

// `value` as a T within [low, high]; std::invalid_argument naming `what` if it is not a JSON integer (floats,
// however integral they look, included) or lies outside the range.
template <std::integral T>
T json_integer(const nlohmann::json& value, const std::string& what, T low = std::numeric_limits<T>::min(),
               T high = std::numeric_limits<T>::max()) {
  if (!value.is_number_integer()) {  // true for unsigned too; false for floats and everything else
    throw std::invalid_argument(
        fmt::format("'{}' must be an integer, not {}", what, value.dump().substr(0, 40)));
  }
  const auto fits = [&](auto v) {
    return std::in_range<T>(v) && static_cast<T>(v) >= low && static_cast<T>(v) <= high;
  };
  const bool in_range =
      value.is_number_unsigned() ? fits(value.get<std::uint64_t>()) : fits(value.get<std::int64_t>());
  if (!in_range) {
    throw std::invalid_argument(fmt::format("'{}' = {} is outside {}..{}", what, value.dump(), low, high));
  }
  return value.is_number_unsigned() ? static_cast<T>(value.get<std::uint64_t>())
                                    : static_cast<T>(value.get<std::int64_t>());
}

// The member `key` of `object` as a T (std::out_of_range-like json error when absent, as .at() gives).
template <std::integral T>
T json_integer_at(const nlohmann::json& object, const std::string& key, T low = std::numeric_limits<T>::min(),
                  T high = std::numeric_limits<T>::max()) {
  return json_integer<T>(object.at(key), key, low, high);
}

// The member `key` of `object` as a T, or `fallback` when there is no such member.
template <std::integral T>
T json_integer_or(const nlohmann::json& object, const std::string& key, T fallback,
                  T low = std::numeric_limits<T>::min(), T high = std::numeric_limits<T>::max()) {
  const auto member = object.find(key);
  return member == object.end() ? fallback : json_integer<T>(*member, key, low, high);
}

// A JSON array of integers (absent: empty).
template <std::integral T>
std::vector<T> json_integer_list(const nlohmann::json& array, const std::string& what) {
  if (array.is_null()) return {};
  if (!array.is_array()) throw std::invalid_argument(fmt::format("'{}' must be an array", what));
  std::vector<T> list;
  list.reserve(array.size());
  for (const nlohmann::json& item : array) list.push_back(json_integer<T>(item, what));
  return list;
}

// A JSON object whose members are integers (absent: empty).
template <std::integral T>
std::map<std::string, T> json_integer_map(const nlohmann::json& object, const std::string& what) {
  if (object.is_null()) return {};
  if (!object.is_object()) throw std::invalid_argument(fmt::format("'{}' must be an object", what));
  std::map<std::string, T> map;
  for (const auto& [key, item] : object.items()) map.emplace(key, json_integer<T>(item, what + "." + key));
  return map;
}

}  // namespace k25
