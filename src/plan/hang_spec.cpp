// Parser of the test-only --inject-hang value "PHASE:TOKENS:OP[:RANK]".
#include "plan/hang_spec.hpp"

#include <charconv>
#include <string_view>
#include <vector>

#include "common/error.hpp"

namespace k25 {
namespace {

bool parse_number(std::string_view text, long long& value) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc{} && end == text.data() + text.size() && value >= 0;
}

}  // namespace

std::optional<HangSpec> parse_hang_spec(const std::string& text) {
  if (text.empty()) return std::nullopt;
  std::vector<std::string_view> fields;
  std::string_view rest(text);
  while (true) {
    const auto colon = rest.find(':');
    fields.push_back(rest.substr(0, colon));
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  const auto bad = [&](const std::string& why) {
    return UsageError("--inject-hang '" + text + "': " + why +
                      " (expected PHASE:TOKENS:OP[:RANK[:BACKEND]], PHASE one of " + enum_name_list<Phase>() +
                      ", BACKEND one of " + enum_name_list<AllreduceBackend>() + ")");
  };
  if (fields.size() < 3 || fields.size() > 5) throw bad("wrong number of fields");
  HangSpec spec;
  const auto phase = enum_from_name<Phase>(fields[0]);
  if (!phase) throw bad("unknown phase");
  spec.phase = *phase;
  long long tokens = 0, op = 0, rank = -1;
  if (!parse_number(fields[1], tokens) || tokens == 0) throw bad("TOKENS is not a positive integer");
  if (!parse_number(fields[2], op)) throw bad("OP is not a non-negative integer");
  if (fields.size() >= 4 && !parse_number(fields[3], rank)) throw bad("RANK is not a non-negative integer");
  if (fields.size() == 5) {
    spec.backend = enum_from_name<AllreduceBackend>(fields[4]);
    if (!spec.backend) throw bad("unknown BACKEND");
  }
  spec.tokens = static_cast<int>(tokens);
  spec.op = static_cast<std::size_t>(op);
  spec.rank = static_cast<int>(rank);
  return spec;
}

}  // namespace k25
