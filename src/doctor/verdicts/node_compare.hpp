// `doctor --compare A B`: what differs between two hosts (or one host at two times): GPUs, path classes, ACS,
// the IOMMU, link training, NVML's P2P status, NCCL's transports and settings, the driver, CUDA and NCCL
// versions, the measured P2P matrix and the all-reduce backend that ran.
#pragma once

#include <string>
#include <vector>

#include "doctor/model/doctor_document.hpp"

namespace k25 {

struct NodeDifference {
  std::string what;     // "path", "ACS", "IOMMU", "link", "NCCL transport", "driver", "backend that ran", ...
  std::string subject;  // "GPU pair 0-1", "bridge 0000:04:08.0", "AllReduce 14336 B"; empty for the host
  std::string a, b;     // the two sides' values ("-" where a side has none)
  std::string line() const;  // "path: GPU pair 0-1: same_switch | several_switches"
};

// Every difference, in a fixed order of `what`, each subject once. Measured P2P bandwidths differ where their
// ratio leaves [0.8, 1.25] (closer figures are one run's noise, not a different node).
std::vector<NodeDifference> compare_nodes(const DoctorDocument& a, const DoctorDocument& b);

}  // namespace k25
