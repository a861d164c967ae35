// Elements of a host buffer by index, as floats: bf16 (16-bit words, rounded to nearest even on store) or
// fp32. Shared by the host transport's collectives, its peer all-reduce backends and their checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "common/vocabulary.hpp"
#include "transport/check_pattern.hpp"

namespace k25 {

inline float load_element(const std::byte* base, std::size_t i, Dtype dtype) {
  if (dtype == Dtype::bf16) {
    std::uint16_t bits = 0;
    std::memcpy(&bits, base + i * 2, 2);
    return check::bf16_to_float(bits);
  }
  float value = 0;
  std::memcpy(&value, base + i * 4, 4);
  return value;
}

inline void store_element(std::byte* base, std::size_t i, Dtype dtype, float value) {
  if (dtype == Dtype::bf16) {
    const std::uint16_t bits = check::float_to_bf16(value);
    std::memcpy(base + i * 2, &bits, 2);
  } else {
    std::memcpy(base + i * 4, &value, 4);
  }
}

}  // namespace k25
