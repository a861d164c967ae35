// The table of collective kinds (nccl-tests' bus-bandwidth factors: doc/PERFORMANCE.md of nccl-tests).
#include "common/collective_kind.hpp"
#include "common/collective_kind_names.hpp"

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

// Every collective kind a run, a trace or a benchmark's output records, as NCCL, its Inspector and the
// profilers' kernel names write it, with the replay's kind where it has one. A name that holds another comes
// first ("allreduce" before "reduce", "alltoallv" before "alltoall"): kind_in_letters finds the longest.
constexpr std::array<RecordedKind, 11> recorded_kind_table{{
    {"allreduce", "AllReduce", CollectiveKind::allreduce},
    {"reducescatter", "ReduceScatter", CollectiveKind::reducescatter},
    {"allgather", "AllGather", CollectiveKind::allgather},
    {"alltoallv", "AllToAllv", std::nullopt},
    {"alltoall", "AllToAll", CollectiveKind::alltoallv},
    {"broadcast", "Broadcast", std::nullopt},
    {"sendrecv", "SendRecv", std::nullopt},
    {"reduce", "Reduce", std::nullopt},
    {"gather", "Gather", std::nullopt},
    {"scatter", "Scatter", std::nullopt},
    {"barrier", "Barrier", std::nullopt},
}};

}  // namespace

std::span<const RecordedKind> recorded_kinds() {
  return recorded_kind_table;
}

std::string_view recorded_name(CollectiveKind kind) {
  for (const RecordedKind& recorded : recorded_kind_table)
    if (recorded.replay == kind) return recorded.name;
  return recorded_kind_table.front().name;  // unreachable: every enumerator has a name (test_rank_ops checks)
}

std::optional<CollectiveKind> kind_of_recorded_name(std::string_view name) {
  for (const RecordedKind& recorded : recorded_kind_table)
    if (recorded.name == name) return recorded.replay;
  return std::nullopt;
}

std::string_view recorded_name_of_letters(std::string_view letters) {
  for (const RecordedKind& recorded : recorded_kind_table)
    if (recorded.letters == letters) return recorded.name;
  return {};
}

const CollectiveKindInfo& kind_info(CollectiveKind kind) {
  for (const CollectiveKindInfo& info : kinds)
    if (info.kind == kind) return info;
  return kinds.front();  // unreachable: every enumerator has an entry (test_rank_ops checks)
}

std::uint64_t nccl_tests_bytes(CollectiveKind kind, std::uint64_t rank_part_bytes, int ranks) {
  const bool every_rank_part = kind == CollectiveKind::allgather || kind == CollectiveKind::reducescatter;
  return every_rank_part ? rank_part_bytes * static_cast<std::uint64_t>(ranks > 0 ? ranks : 1)
                         : rank_part_bytes;
}

}  // namespace k25
