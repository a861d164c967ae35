// `k25comm doctor`: why a node's collectives cost what they cost. The command's options and its run: doctor/
// reads the inputs (this host's sysfs under --root, what was pasted: --from, --nccl-log, --nccl-topo; a
// capture's backends), builds the node model and judges it; this writes doctor.json, doctor.md (and p2p.png)
// and prints the summary. `doctor --compare A B` lists what differs between two doctor outputs or reports.
// Needs no MPI.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "transport/nccl_backend.hpp"

namespace k25 {

struct DoctorCommandOptions {
  std::string out_dir = "k25comm-doctor";
  std::string root;  // --root: where sys/ and proc/ are read (empty: / where the node is this host)
  std::string host;  // --host: the name recorded (default: the inputs', else this host's)
  std::vector<std::string> from;       // --from: pasted files or folders, each file's formats told by content
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
