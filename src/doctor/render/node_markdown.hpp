// A node's sections in words (verdicts with their evidence, sources that disagree, GPUs, paths, bridges and
// ACS, IOMMU, versions, NCCL's view, bandwidth tests, DCGM, measured P2P): doctor.md's and report.md's "Node
// diagnosis" from the same model and verdicts.
#pragma once

#include <string>
#include <vector>

#include "doctor/model/node_model.hpp"
#include "doctor/model/node_verdict.hpp"

namespace k25 {

// The node's sections, their headings at `level` (2: "##"). Every section is there; an empty one says why.
std::string node_markdown(const NodeModel& model, const std::vector<NodeVerdict>& verdicts, int level);
// A measuring run's node (report.json's topology.nodes[]).
std::string node_markdown(const NodeFacts& facts, const std::vector<NodeVerdict>& verdicts, int level);
// "Not seen": what could not be seen, one sentence each; nothing where everything was.
std::string unseen_markdown(const NodeFacts& facts, int level);

// The matrix of path classes, nvidia-smi topo -m's way (NV18, PIX, ... and NCCL's transport kind where its
// log named the pair), as Markdown or aligned text.
std::string path_matrix_text(const NodeFacts& facts, bool markdown);
// The measured P2P matrices (push, pull, memcpy) and latencies, or why there are none.
std::string measured_text(const P2pMeasurement& p2p, bool markdown);

}  // namespace k25
