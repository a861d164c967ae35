// Doctor's verdicts: each finding about a node as one typed verdict that says what was seen and where (the
// lines it was read from), what it costs, what fixes it and where that advice comes from; and the node's
// one-line headline.
#pragma once

#include <string>
#include <vector>

#include "doctor/model/node_model.hpp"
#include "doctor/model/node_verdict.hpp"

namespace k25 {

// Every verdict the model calls for, in VerdictId order, each kind at most once per subject (a bridge, a GPU,
// a set of pairs). Pure: the same model gives the same verdicts.
std::vector<NodeVerdict> node_verdicts(const NodeModel& model);
// A measuring run's node (report.json's topology.nodes[]): its facts without pasted inputs.
std::vector<NodeVerdict> node_verdicts(const NodeFacts& facts);

// A capture's note that an engine's documented rule would have chosen another backend, as a verdict.
NodeVerdict backend_rule_verdict(const std::string& note);

// The one-line summary of a node: "HOST: 8 GPUs, PCIe (12 GPU pairs same PCIe switch, 16 across CPU sockets);
// 3 findings that cost: ACS redirects peer traffic, ... [NCCL through shared memory where P2P was possible]".
// The bracketed tag appears where NCCL's log shows a pair through shared memory or the network where P2P was
// possible.
std::string node_headline(const NodeModel& model, const std::vector<NodeVerdict>& verdicts);
std::string node_headline(const NodeFacts& facts, const std::vector<NodeVerdict>& verdicts);

}  // namespace k25
