// The late-arrival wrapper and the parser of its option.
#include "transport/delayed_arrival.hpp"

#include <charconv>
#include <chrono>

#include <fmt/format.h>

#include "common/error.hpp"

namespace k25 {

std::optional<DelaySpec> parse_delay_spec(const std::string& text) {
  if (text.empty()) return std::nullopt;
  const auto bad = [&](const char* why) {
    return UsageError(fmt::format("--inject-delay '{}': {} (expected RANK:US, e.g. 2:50000)", text, why));
  };
  const auto colon = text.find(':');
  if (colon == std::string::npos) throw bad("no ':'");
  DelaySpec spec;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [rank_end, rank_error] = std::from_chars(begin, begin + colon, spec.rank);
  if (rank_error != std::errc{} || rank_end != begin + colon || colon == 0 || spec.rank < 0)
    throw bad("RANK is not a non-negative integer");
  auto [us_end, us_error] = std::from_chars(begin + colon + 1, end, spec.microseconds);
  if (us_error != std::errc{} || us_end != end || !(spec.microseconds > 0 && spec.microseconds <= 1e7))
    throw bad("US is not a number of microseconds in (0, 10000000]");
  return spec;
}

DelayedArrival::DelayedArrival(std::unique_ptr<Transport> inner, double delay_us)
    : inner_(std::move(inner)), delay_us_(delay_us) {}

void DelayedArrival::begin_trial() {
  inner_->begin_trial();
  // A busy wait, as compute would be: a sleep would hand the core to another rank and blur the test.
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double, std::micro>(delay_us_);
  while (std::chrono::steady_clock::now() < until) {
  }
}

}  // namespace k25
