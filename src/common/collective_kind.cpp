// The table of collective kinds (nccl-tests' bus-bandwidth factors: doc/PERFORMANCE.md of nccl-tests).
#include "common/collective_kind.hpp"

namespace k25 {
namespace {

std::size_t same(std::size_t count, int) {
  return count;
}
std::size_t times_ranks(std::size_t count, int ranks) {
  return count * static_cast<std::size_t>(ranks > 0 ? ranks : 0);
}
std::size_t none(std::size_t, int) {
  return 0;
}
double twice_share_of_others(int ranks) {
  return ranks > 0 ? 2.0 * (ranks - 1.0) / ranks : 0.0;
}
double share_of_others(int ranks) {
  return ranks > 0 ? (ranks - 1.0) / ranks : 0.0;
}

constexpr std::array<CollectiveKindInfo, 4> kinds{{
    {CollectiveKind::allreduce, "AllReduce", true, same, same, twice_share_of_others},
    {CollectiveKind::alltoallv, "All-to-Allv", false, none, none, share_of_others},
    {CollectiveKind::allgather, "AllGather", false, same, times_ranks, share_of_others},
    {CollectiveKind::reducescatter, "ReduceScatter", true, times_ranks, same, share_of_others},
}};

}  // namespace

const CollectiveKindInfo& kind_info(CollectiveKind kind) {
  for (const CollectiveKindInfo& info : kinds)
    if (info.kind == kind) return info;
  return kinds.front();  // unreachable: every enumerator has an entry (test_collective_kind checks)
}

std::uint64_t nccl_tests_bytes(CollectiveKind kind, std::uint64_t rank_part_bytes, int ranks) {
  const bool every_rank_part = kind == CollectiveKind::allgather || kind == CollectiveKind::reducescatter;
  return every_rank_part ? rank_part_bytes * static_cast<std::uint64_t>(ranks > 0 ? ranks : 1)
                         : rank_part_bytes;
}

}  // namespace k25
