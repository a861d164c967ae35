// The one node model from any mix of the pasted families and, where doctor runs on the node, this host's
// sysfs and NVML: the node's GPUs settled first (gpu_identity.hpp), then each family's facts filled in, sysfs
// and lspci before nvidia-smi, NCCL's dump and the logs (a fact already there is kept; NVLink, which sysfs
// cannot see, is taken from whichever source shows it). Every fact is also kept as its source gave it, and
// facts that sources give different values are said (NodeModel::disagreements).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "doctor/model/node_model.hpp"
#include "doctor/readers/input_formats.hpp"

namespace k25 {

struct NodeBuildInputs {
  PastedInputs pasted;
  std::optional<NodeFacts> this_host;  // this machine's facts, where they are the node's
  std::string host;                    // the host recorded; lines of other hosts are left out of the node
  std::string host_from;               // where that name came from
};

// The hosts the inputs name (NCCL's line prefixes, nccl-tests' "on HOST"), each with how many lines name it.
std::map<std::string, int> hosts_named(const PastedInputs& inputs);

NodeModel build_node_model(NodeBuildInputs inputs);

// The NCCL logs' part (nccl_join.cpp): versions, settings, communicators, each connection's GPUs (by the Init
// lines, the busId in the channel line, or the cudaDev taken as nvidia-smi's index, as said), 'P2P is
// disabled' lines and NCCL's GRAPH routes, into `model`'s pairs and NCCL part.
class GpuIdentity;
void join_nccl_logs(const std::vector<NcclLog>& logs, const std::string& host, const GpuIdentity& gpus,
                    NodeModel& model);

}  // namespace k25
