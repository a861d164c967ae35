// One name table per enumeration, shared by YAML, the command line and the report: to_string, lookup by name,
// and the list of names for messages. An enumeration takes part by specializing EnumNames<E> with `values`.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace k25 {

template <typename E>
struct EnumNames;  // static constexpr std::array<std::pair<E, std::string_view>, N> values;

// The name of `value`, or "?" for a value without one.
template <typename E>
constexpr const char* enum_name(E value) {
  for (const auto& [candidate, name] : EnumNames<E>::values)
    if (candidate == value) return name.data();
  return "?";
}

// The value called `name`, or nullopt.
template <typename E>
constexpr std::optional<E> enum_from_name(std::string_view name) {
  for (const auto& [value, candidate] : EnumNames<E>::values)
    if (candidate == name) return value;
  return std::nullopt;
}

// "a, b, c": every name, for messages.
template <typename E>
std::string enum_name_list() {
  std::string list;
  for (const auto& [value, name] : EnumNames<E>::values) {
    if (!list.empty()) list += ", ";
    list += name;
  }
  return list;
}

}  // namespace k25
