// Joins NCCL's own view (its topology dump and its INFO log) to one host's node facts: per GPU pair the path
// NCCL computed and the transport it used, matched by PCI bus id.
#pragma once

#include "topology/nccl_info_log.hpp"
#include "topology/nccl_topology_xml.hpp"
#include "topology/node_facts.hpp"

namespace k25 {

// Sets each pair's nccl_path from the dump. Where sysfs showed no GPU (doctor run elsewhere than the node),
// the dump's GPUs become the facts' GPUs, their pairs classed by the dump. GPUs of the dump that sysfs does
// not show are said in facts.nccl.notes.
void add_nccl_topology(NodeFacts& facts, const NcclTopologyXml& dump);

// Sets each pair's nccl_transport (and nccl_p2p_disabled) from the log, the version and the environment
// lines. Connections between ranks of different hosts are left out (the network is their expected transport).
// Where neither sysfs nor a dump showed GPUs, the log's ranks' GPUs become the facts' GPUs.
void add_nccl_log(NodeFacts& facts, const NcclInfoLog& log);

}  // namespace k25
