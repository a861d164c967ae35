// An absent value written as JSON null, and read back as absent where the key is missing, null or of another
// type (capture.json, predict.json, report.json).
#pragma once

#include <optional>
#include <type_traits>

#include <nlohmann/json.hpp>

namespace k25 {

template <typename T>
nlohmann::json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

// `j[key]` where it is a number of T's sort (any number for a floating-point T, a non-negative integer for an
// unsigned one, an integer for a signed one); nullopt otherwise.
template <typename T>
std::optional<T> optional_json_at(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return std::nullopt;
  const nlohmann::json& value = j.at(key);
  if constexpr (std::is_floating_point_v<T>) {
    if (!value.is_number()) return std::nullopt;
  } else if constexpr (std::is_unsigned_v<T>) {
    if (!value.is_number_unsigned()) return std::nullopt;
  } else {
    if (!value.is_number_integer()) return std::nullopt;
  }
  return value.get<T>();
}

}  // namespace k25
