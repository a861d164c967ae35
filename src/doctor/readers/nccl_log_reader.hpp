// NCCL's NCCL_DEBUG=INFO output of NCCL 2.4 to 2.30, with its "host:pid:tid [dev] NCCL INFO" prefix or
// without it (pasted bare, or behind an mpirun "[1,0]<stdout>:" or an engine's "(VllmWorker rank=0 pid=1)"
// tag): the version, the ranks' devices (Init COMPLETE / START lines, with or without nvmlDev, busId and
// commId), the channel lines in every form ("Ring 00 : 0[0] -> 1[1]", "Channel 00 : 1[c2000] -> 0[c1000]",
// "Channel 00/0 : 0[0] -> 1[1] [send]", "35 -> 34 [send] via NET/Socket/0"), ring order and tree lines, "P2P
// is disabled between connected GPUs", the settings the environment made, the GRAPH path table ("GPU/0-4f000
// (4/24.0/PHB)"), "ncclMaxSharedMem ... exceeds" and NCCL WARN lines. Lines that are not NCCL's are skipped:
// an engine's log mixes them with its own.
//
// Channel lines are keyed by communicator and rank, never by the rank alone: a process's lines belong to the
// communicator its thread is initializing (the "comm 0x... rank R nRanks N" line before them, or the Init
// line after them), and communicators are told apart by their commId where NCCL prints one, else by grouping
// the Init lines of one size (a rank seen again opens the next communicator). Lines whose thread never
// printed an Init line (a job that hung in init) keep their ranks and say so.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "doctor/model/node_model.hpp"
#include "doctor/readers/pasted_text.hpp"
#include "topology/gpu_paths.hpp"

namespace k25 {

// A row of NCCL's GRAPH path table: the path NCCL computed from one GPU to another.
struct NcclGraphPath {
  std::string from_bus, to_bus;  // "0000:4f:00.0"
  PathClass path = PathClass::unknown;
  std::string type;  // NCCL's word: "PHB", "PIX", "NVL", "SYS"
  double bandwidth_gbps = 0;
  FactSource source;
};

// "P2P is disabled between connected GPUs 1 and 0": two CUDA devices of the printing process.
struct NcclP2pDisabled {
  int dev_a = -1, dev_b = -1;
  std::string host;
  FactSource source;
};

struct NcclLog {
  std::string file;
  NcclSeen seen;  // versions, settings, communicators, connections (not matched to GPUs), warnings
  std::vector<NcclGraphPath> graph_paths;
  std::vector<NcclP2pDisabled> p2p_disabled;
  std::map<std::string, int> hosts;  // host prefixes and how many lines named each
  std::string cuda_driver_version;   // "12.8", from "cudaDriverVersion 12080"
  int lines = 0;                     // NCCL lines read
  int unprefixed = 0;                // of them, lines without a host:pid:tid prefix
};

// Whether `text` has a line of NCCL's INFO or WARN output (prefixed or bare).
bool has_nccl_log(const PastedText& text);

// Reads `text`'s NCCL lines. Never throws: a text without any leaves the log empty.
NcclLog read_nccl_log(const PastedText& text);

// NCCL's busId ("4f000", "0004f000", "1b000", "0-4f000") as a PCI bus id ("0000:4f:00.0"); empty for anything
// else.
std::string bus_id_from_nccl(const std::string& nccl_bus_id);

// A bracket of a channel line names a busId (4 hex digits or more, "c2000") rather than a cudaDev ("1").
bool bracket_is_bus_id(const std::string& bracket);

}  // namespace k25
