// One name table per enumeration, shared by YAML, the command line and the report: to_string, lookup by name,
// and the list of names for messages, help texts and type strings. An enumeration takes part by specializing
// EnumNames<E> with `values`; it then has to_string() without a line of its own.
#pragma once

#include <array>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace k25 {

template <typename E>
struct EnumNames;  // static constexpr std::array<std::pair<E, std::string_view>, N> values;

// An enumeration with a name table.
template <typename E>
concept NamedEnum = requires {
  EnumNames<E>::values;
};

// The name of `value`, or "?" for a value without one.
template <NamedEnum E>
constexpr const char* enum_name(E value) {
  for (const auto& [candidate, name] : EnumNames<E>::values)
    if (candidate == value) return name.data();
  return "?";
}

// The name of `value`, as the report, YAML and the command line write it.
template <NamedEnum E>
constexpr const char* to_string(E value) {
  return enum_name(value);
}

// The value called `name`, or nullopt.
template <NamedEnum E>
constexpr std::optional<E> enum_from_name(std::string_view name) {
  for (const auto& [value, candidate] : EnumNames<E>::values)
    if (candidate == name) return value;
  return std::nullopt;
}

// The names of `values` in their order; every name of the table when `values` is empty.
template <NamedEnum E>
std::vector<std::string> enum_names(std::initializer_list<E> values = {}) {
  std::vector<std::string> names;
  if (values.size() == 0) {
    for (const auto& [value, name] : EnumNames<E>::values) names.emplace_back(name);
  } else {
    for (E value : values) names.emplace_back(enum_name(value));
  }
  return names;
}

// "a, b, c": the names joined by `separator`, for messages and help texts.
inline std::string join_names(const std::vector<std::string>& names, std::string_view separator = ", ") {
  std::string joined;
  for (const std::string& name : names) {
    if (!joined.empty()) joined += separator;
    joined += name;
  }
  return joined;
}

// Every name of E's table, "a, b, c".
template <NamedEnum E>
std::string enum_name_list() {
  return join_names(enum_names<E>());
}

// The value called `name`; std::invalid_argument naming `what` and the known names otherwise (a report reader
// turns it into "not a valid k25comm report").
template <NamedEnum E>
E enum_from_name_or_throw(std::string_view what, std::string_view name) {
  if (const auto value = enum_from_name<E>(name)) return *value;
  throw std::invalid_argument("unknown " + std::string(what) + " '" + std::string(name) +
                              "' (known: " + enum_name_list<E>() + ")");
}

}  // namespace k25
