// `k25comm doctor`: why this node's collectives cost what they cost. Reads the host's PCI tree, ACS bits,
// IOMMU, NUMA and links (sysfs under --root), NVML's P2P status, NCCL's own view (--nccl-topo, --nccl-log),
// the all-reduce backends a capture saw (--capture), measures the GPUs' P2P copies where they are visible,
// and writes doctor.json, doctor.md (and p2p.png) with one verdict line per finding. `doctor --compare A B`
// lists what differs between two doctor outputs or reports. Needs no MPI.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "transport/nccl_backend.hpp"

namespace k25 {

struct DoctorCommandOptions {
  std::string out_dir = "k25comm-doctor";
  std::string root = "/";              // --root: where sys/ and proc/ are read
  std::string host;                    // --host: the name recorded (default: this host's)
  std::string nccl_topo;               // --nccl-topo: NCCL_TOPO_DUMP_FILE's XML
  std::vector<std::string> nccl_logs;  // --nccl-log: NCCL_DEBUG=INFO logs (files or folders)
  std::string capture;                 // --capture: capture.json whose trace.backends say what ran
  std::vector<std::string> compare;    // --compare A B
  bool measure = true;                 // --no-measure: no P2P copies
  bool plots = true;                   // --no-plots
  std::string command_line;
};

// Returns 0 with or without findings. Throws UsageError (exit 2) for an input that is missing or not what its
// flag reads, RuntimeFault (exit 3) where the output cannot be written.
int run_doctor_command(const DoctorCommandOptions& options, const NcclBackend& nccl, std::ostream& out);

}  // namespace k25
