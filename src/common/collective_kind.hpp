// One description per collective kind: its name, what one op moves per rank, and nccl-tests' bus-bandwidth
// factor. Adding a kind means one entry here, its check data in transport/check_pattern.hpp, and one launch
// per transport (docs/development.md, "How a run flows, and adding a collective kind").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
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

// The size nccl-tests gives an op of `kind` (what its *_perf programs print, and what k25comm's plan, reports
// and predict use), from one rank's part of it among `ranks`: an AllGather's contribution and a
// ReduceScatter's share of the result count `ranks` times (the gathered output; the input reduced); an
// AllReduce's vector and the bytes one rank sends in an All-to-Allv are the size itself. c10d's "In msg
// nelems" and the Inspector's coll_msg_size_bytes give the rank's part.
std::uint64_t nccl_tests_bytes(CollectiveKind kind, std::uint64_t rank_part_bytes, int ranks);

inline const char* to_string(CollectiveKind kind) {
  return enum_name(kind);
}

}  // namespace k25
