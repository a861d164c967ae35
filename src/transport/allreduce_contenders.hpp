// The backends the AllReduce burst is replayed with (--allreduce-backends): the run's transport for its own
// collective (nccl on GPUs, mpi on the host transport), a peer all-reduce backend built on it for the others
// (oneshot, twoshot, oneshot-pull: host_peer_allreduce.hpp on the host transport, the NCCL backend's on
// GPUs), or why one cannot run on this node, agreed by every rank.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/rank_context.hpp"
#include "config/run_config.hpp"
#include "transport/nccl_backend.hpp"
#include "transport/transport.hpp"

namespace k25 {

struct AllreduceContender {
  AllreduceBackend backend = AllreduceBackend::nccl;
  Transport* transport = nullptr;    // null where unavailable
  std::unique_ptr<Transport> owned;  // a peer backend's
  std::string unavailable;           // why every row of it says "not run"; empty where it runs
  bool own = false;                  // the transport's own collective (the run's default rows)
  std::string name() const { return to_string(backend); }
};

// The transport's own collective: nccl on the nccl transport, mpi on the host transport.
AllreduceBackend own_backend(const Transport& transport);

// The backends config.sweep.allreduce_backends names (the transport's own alone where it names none), in its
// order. Throws UsageError (every rank alike) for a library collective of the other transport (nccl on the
// host transport, mpi on GPUs) and for an --inject-wrong backend that is not a peer backend of the list.
// Collective over context.world() where a peer backend is asked (its buffers are mapped then).
std::vector<AllreduceContender> make_allreduce_contenders(const RunConfig& config, Transport& transport,
                                                          const RankContext& context,
                                                          const NcclBackend& nccl);

}  // namespace k25
