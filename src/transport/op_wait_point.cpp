// An armed op in words, for the watchdog's message.
#include "transport/op_wait_point.hpp"

#include <fmt/format.h>

namespace k25 {

std::string OpWaitPoint::describe() const {
  if (burst == nullptr) return call;
  const bool alltoall =
      op_index < burst->ops.size() && burst->ops[op_index].kind == CollectiveKind::alltoallv;
  std::string extra;
  if (bytes > 0) extra = fmt::format("{} bytes{}", bytes, alltoall ? " sent by this rank" : "");
  if (verifying) extra += extra.empty() ? "correctness pass" : ", correctness pass";
  return fmt::format("{} of {}, op {} of {}{}{}{}", call, burst->what, op_index, burst->ops.size(),
                     extra.empty() ? "" : " (", extra, extra.empty() ? "" : ")");
}

}  // namespace k25
