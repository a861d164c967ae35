// Buffer sizes of an op descriptor.
#include "plan/collective_op.hpp"

#include <numeric>

#include <fmt/format.h>

namespace k25 {

std::size_t CollectiveOp::send_buffer_bytes(int ranks) const {
  if (kind == CollectiveKind::alltoallv)
    return std::accumulate(send_bytes.begin(), send_bytes.end(), std::size_t{0});
  return kind_info(kind).send_elements(count, ranks) * dtype_bytes(dtype);
}

std::size_t CollectiveOp::recv_buffer_bytes(int ranks) const {
  if (kind == CollectiveKind::alltoallv)
    return std::accumulate(recv_bytes.begin(), recv_bytes.end(), std::size_t{0});
  return kind_info(kind).recv_elements(count, ranks) * dtype_bytes(dtype);
}

std::string op_words(const OpBurst& burst, std::size_t op_index) {
  const std::string& label = op_index < burst.ops.size() ? burst.ops[op_index].label : std::string();
  return fmt::format("{}, op {} of {}{}{}{}", burst.what, op_index, burst.ops.size(),
                     label.empty() ? "" : " (", label, label.empty() ? "" : ")");
}

}  // namespace k25
