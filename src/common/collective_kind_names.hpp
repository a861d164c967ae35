// Every collective kind by the name NCCL, the NCCL Inspector and the profilers' kernel names give it
// ("AllReduce", "AllToAll", "Broadcast", "SendRecv", ...), for the readers and analyses of what a run
// recorded.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "common/collective_kind.hpp"

namespace k25 {

struct RecordedKind {
  std::string_view letters;              // lower case, letters only: "allreduce", "sendrecv"
  std::string_view name;                 // as recorded: "AllReduce", "SendRecv"
  std::optional<CollectiveKind> replay;  // the replay's kind this name is recorded for; none for "Broadcast"
};

// Every recorded kind, a name that holds another before it ("alltoallv" before "alltoall").
std::span<const RecordedKind> recorded_kinds();

// The recorded name of a kind in letters ("reducescatter" -> "ReduceScatter"); empty for none.
std::string_view recorded_name_of_letters(std::string_view letters);

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
