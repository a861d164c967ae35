// NCCL versions known not to run (or to run without their GPU's kernels) on a GPU family, one row each with
// the NCCL release notes or issue that says so. A row matches where the node's NCCL (from a log or
// nccl-tests' header) is in its version range and one of the node's GPUs is of its family, or where the log
// shows the row's own error line.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "doctor/model/node_verdict.hpp"
#include "topology/node_facts.hpp"

namespace k25 {

using NcclVersionNumber = std::array<int, 3>;  // {2, 25, 1}

struct NcclVersionRule {
  const char* family;  // "GeForce Blackwell (sm_120: RTX 50 series, RTX PRO Blackwell)"
  bool (*gpu_matches)(const NodeGpu& gpu);
  NcclVersionNumber from, below;  // the NCCL versions the rule holds for: [from, below)
  Severity severity;              // cost: it does not run; check: it runs without its GPU's kernels
  const char* what;               // what happens, in words
  const char* error_line;         // what the log shows ("ncclMaxSharedMem"); empty where nothing
  const char* fix;
  const char* source;
  const char* url;
};

const std::vector<NcclVersionRule>& nccl_version_rules();

// "2.25.1+cuda12.8" as {2, 25, 1}; {0, 0, 0} where it is none.
NcclVersionNumber nccl_version_number(const std::string& version);

}  // namespace k25
