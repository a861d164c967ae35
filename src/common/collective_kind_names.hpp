// The collective kinds by the names NCCL, the NCCL Inspector and the profilers' kernel names give them
// ("AllReduce", "AllGather", "ReduceScatter", "AllToAll"), for the readers and analyses of what a run
// recorded.
#pragma once

#include <optional>
#include <string_view>

#include "common/collective_kind.hpp"

namespace k25 {

// "AllReduce" for CollectiveKind::allreduce, "AllToAll" for alltoallv, ...
std::string_view recorded_name(CollectiveKind kind);

// The kind a recorded name names; nullopt for one that names no kind of the replay ("Broadcast", "SendRecv",
// "Dispatch", ...).
std::optional<CollectiveKind> kind_of_recorded_name(std::string_view name);

// Whether `name` is the recorded name of `kind`.
inline bool names_kind(std::string_view name, CollectiveKind kind) {
  return name == recorded_name(kind);
}

}  // namespace k25
