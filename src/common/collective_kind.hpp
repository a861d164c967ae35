// One description per collective kind: its name, what one op moves per rank, and nccl-tests' bus-bandwidth
// factor. Adding a kind means one entry here, its check data in transport/check_pattern.hpp, and one launch
// per transport (docs/development.md, "How a run flows, and adding a collective kind").
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <utility>

#include "common/enum_names.hpp"

namespace k25 {

enum class CollectiveKind { allreduce, alltoallv, allgather, reducescatter };

template <>
struct EnumNames<CollectiveKind> {
  static constexpr std::array<std::pair<CollectiveKind, std::string_view>, 4> values{
      {{CollectiveKind::allreduce, "allreduce"},
       {CollectiveKind::alltoallv, "alltoallv"},
       {CollectiveKind::allgather, "allgather"},
       {CollectiveKind::reducescatter, "reducescatter"}}};
};

struct CollectiveKindInfo {
  CollectiveKind kind;
  const char* title;  // as users know it: "AllReduce"
  bool reduces;       // sums elements: the dtype must be one the transports add (bf16, fp32)
  // Elements in this rank's send and receive buffer for an op of `count` elements (the count NCCL's call
  // takes: AllReduce the vector, AllGather each rank's part, ReduceScatter each rank's part of the result).
  // All-to-Allv: 0, its per-peer counts give the sizes.
  std::size_t (*send_elements)(std::size_t count, int ranks);
  std::size_t (*recv_elements)(std::size_t count, int ranks);
  // nccl-tests' factor from algorithm bandwidth (bytes per rank / time) to bus bandwidth.
  double (*busbw_factor)(int ranks);
};

const CollectiveKindInfo& kind_info(CollectiveKind kind);

inline const char* to_string(CollectiveKind kind) {
  return enum_name(kind);
}

}  // namespace k25
