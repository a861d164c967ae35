// JSON tokens as a profiler trace's reader takes them from the text in place: microseconds written as decimal
// text into integer nanoseconds exactly (a double keeps only 0.25 us of "1712195495519689.047"), integers,
// and string tokens without copying them where they hold no escape.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace k25 {

// Nanoseconds from a JSON number token in microseconds ("1712195495519689.047", "12", "-3.5", trailing
// whitespace allowed): the decimal digits read exactly, three decimals whole nanoseconds, a fourth rounding
// half up; an exponent ("3.5e2") through a double. nullopt where it is no number or out of range.
std::optional<std::int64_t> microseconds_to_ns(std::string_view token);

// An integer from a JSON number token ("42", "-7", "4.0"; a fraction is cut off); nullopt where it is no
// number or out of range.
std::optional<std::int64_t> integer_of(std::string_view token);

// The text of a JSON string token ("\"abc\"  " gives abc) where it holds no backslash; nullopt otherwise (no
// string, or one that needs unescaping).
std::optional<std::string_view> plain_string(std::string_view token);

}  // namespace k25
