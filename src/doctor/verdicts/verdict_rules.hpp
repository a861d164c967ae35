// What the verdict rules share: the two groups of rules (the node's hardware, NCCL's view and the bandwidth
// tests) and the words and evidence they build their lines from. Every rule compares typed facts (path
// classes, transport kinds, counts), never the words a report shows.
#pragma once

#include <string>
#include <vector>

#include "doctor/model/node_model.hpp"
#include "doctor/model/node_verdict.hpp"

namespace k25 {

// The node's own rules: ACS, the IOMMU, NVML's P2P status, DCGM, links and slots, host bridges and sockets,
// ranks far from their GPU, NVLink, the engines' documented rule, what could not be seen.
void hardware_verdicts(const NodeModel& model, std::vector<NodeVerdict>& out);
// NCCL's view and the bandwidth tests: NCCL off P2P where it was possible, one switch through the CPU, P2P
// slower than staging, P2P limited by the environment, an NCCL known not to run on the GPU.
void nccl_verdicts(const NodeModel& model, std::vector<NodeVerdict>& out);

// "3 GPU pairs".
std::string count_pairs(std::size_t count);
// "0-1, 0-2, 1-2" with at most `most` named and "and N more".
std::string pair_list(const std::vector<const NodePair*>& pairs, std::size_t most = 8);
// `more` appended to `evidence`, without repeats, up to `most` in all.
void add_evidence(std::vector<FactSource>& evidence, const std::vector<FactSource>& more,
                  std::size_t most = 8);
// How far a path class reaches, nearest first (NVLink 1, one switch 2, several 3, host bridge 4, across host
// bridges 5, across sockets and unknown 6): the scale NCCL_P2P_LEVEL and NCCL's route are compared on.
int path_reach(PathClass path);

// Whether the pair could use P2P: NVML says read and write are OK, else no source said P2P is missing and its
// path is NVLink, a switch or the host bridge (pairs across host bridges and sockets are left out: NCCL's own
// default leaves P2P off there on most hosts), and NCCL did not route it farther than that path (NCCL routes
// a pair without P2P through the CPU: its GRAPH table says so).
bool p2p_possible(const NodeModel& model, const NodePair& pair);

}  // namespace k25
