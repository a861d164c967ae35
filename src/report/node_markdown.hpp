// The node diagnosis in words: doctor.md, doctor's console summary, and report.md's "Node diagnosis" section,
// from the same facts and verdicts.
#pragma once

#include <string>
#include <vector>

#include "analysis/doctor_document.hpp"
#include "analysis/node_compare.hpp"

namespace k25 {

// One host's sections (verdicts, GPUs, paths, bridges and ACS, IOMMU, NCCL's view, measured P2P), their
// headings at `level` (2: "##"). Every section is there; an empty one says why.
std::string node_markdown(const NodeFacts& facts, const std::vector<NodeVerdict>& verdicts, int level);
// "Not seen": what could not be seen, one sentence each; nothing where everything was.
std::string unseen_markdown(const NodeFacts& facts, int level);

// doctor.md: the headline, node_markdown and the backends that ran (or that no capture was given).
std::string doctor_markdown(const DoctorDocument& document);

// What doctor prints: the headline, each verdict's line, the path matrix, the measured matrix where measured,
// the inputs not given, and what could not be seen.
std::string doctor_console(const DoctorDocument& document);

// What `doctor --compare` prints: both sides' sources and headlines and one line per difference.
std::string node_compare_text(const DoctorDocument& a, const DoctorDocument& b,
                              const std::vector<NodeDifference>& differences);

}  // namespace k25
