// NCCL's choice of transport, from its NCCL_DEBUG=INFO output: the connection lines ("Channel 00/0 : 0[0] ->
// 1[1] via P2P/CUMEM/read", "via SHM/direct/direct", "via NET/IB/0"), the "P2P is disabled between connected
// GPUs" lines, the ranks' devices ("... rank 1 nranks 8 cudaDev 1 nvmlDev 1 busId 4f000 ... Init COMPLETE"),
// the version and the settings NCCL says the environment made.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace k25 {

// The transport NCCL used from one rank to another, as its log names it after "via ".
struct NcclConnection {
  int from_rank = -1, to_rank = -1;
  std::string transport;  // "P2P/CUMEM/read", "P2P/direct pointer", "SHM/direct/direct", "NET/IB/0/GDRDMA"
  int channels = 0;       // channel lines naming this (from, to, transport)
  // "P2P", "SHM", "NET", "COLLNET", "NVLS" or the first word of anything else.
  std::string kind() const;
};

struct NcclRankDevice {
  int cuda_dev = -1, nvml_dev = -1;
  std::string bus_id;  // "0000:4f:00.0", from NCCL's busId ("4f000")
  std::string host;    // the line's host prefix, where the log has one
};

struct NcclInfoLog {
  std::vector<std::string> files;
  std::string nccl_version;                 // "2.26.5+cuda12.9"
  std::map<int, NcclRankDevice> ranks;      // by rank (of the last communicator line seen for it)
  std::vector<NcclConnection> connections;  // in first-seen order, one per (from, to, transport)
  std::vector<std::pair<int, int>>
      p2p_disabled;                      // (device, device) pairs NCCL said "P2P is disabled between"
  std::vector<std::string> environment;  // "NCCL_P2P_DISABLE set by environment to 1", distinct, in order
  int lines = 0;                         // lines read that carried "NCCL INFO" or "NCCL WARN"
};

// Adds the NCCL lines of `text` (one log file, or several concatenated) to `log`. Lines that are not NCCL's
// are skipped: an engine's log mixes them with its own. Never throws: a log without any NCCL line leaves
// `log` as it was, and the caller says so.
void read_nccl_info_log(std::string_view text, const std::string& file, NcclInfoLog& log);

// NCCL's busId ("4f000", "0004f000", "1b000") as a PCI bus id ("0000:4f:00.0"); empty for anything else.
std::string bus_id_from_nccl(const std::string& nccl_bus_id);

}  // namespace k25
