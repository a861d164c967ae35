// The run's topology label ("pcie", "nvlink", "mixed", "host") and the link limit of its slowest GPU.
#pragma once

#include "topology/topology_info.hpp"

namespace k25 {

// Sets kind, link_limit_gbps and link_description from `gpus` (and whether the run spans hosts: then the
// network between hosts bounds the All-to-All and AllReduce, which this tool does not know, so there is no
// limit). No GPUs: kind "host". All GPUs with active NVLinks: "nvlink"; none: "pcie"; some: "mixed", limited
// by PCIe.
void label_topology(TopologyInfo& info, int hosts);

// Relabels a run of emulated ranks (several NCCL ranks per GPU, test mode): kind "emulated", no link limit
// (the ranks talk through sockets), and a description with the ranks and distinct GPUs.
void label_emulated(TopologyInfo& info, int ranks);

// Fills info.hosts from every rank's host and node-local rank (index = world rank): one entry per host in the
// order of its lowest rank, its ranks in node-local order, and its own GPUs (those of info.gpus on it)
// labelled as label_topology labels a one-host run. Call after info.gpus is complete.
void label_hosts(TopologyInfo& info, const std::vector<std::string>& rank_hosts,
                 const std::vector<int>& local_ranks);

}  // namespace k25
