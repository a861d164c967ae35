// capture.json writes an absent value as null.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

namespace k25 {

template <typename T>
nlohmann::json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace k25
