// An absent value written as JSON null (capture.json, predict.json).
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

namespace k25 {

template <typename T>
nlohmann::json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace k25
