// Which GPU of the node a source means. Sources name GPUs in four ways: by PCI bus id (sysfs, lspci, NCCL's
// dump, NCCL's Init and GRAPH lines), by nvidia-smi's index (topo -m, -p2p, DCGM: bus id order), by a CUDA
// device index of some process (nccl-tests, p2pBandwidthLatencyTest, nvbandwidth, NCCL's cudaDev), or by
// rank. The node's GPUs are sysfs's where doctor read this host, else every bus id the sources name (in bus
// id order, nvidia-smi's), else as many as the index-only sources show. A CUDA index is turned into a GPU by
// what a source that names both taught, else taken as nvidia-smi's index, which is said.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "topology/node_facts.hpp"

namespace k25 {

class GpuIdentity {
 public:
  // While the inputs are gathered: a bus id a source named, an nvidia-smi index one showed, and a CUDA index
  // a source tied to a bus id.
  void name_bus(const std::string& bus_id);
  void name_index(int index);
  void learn_cuda(int cuda_index, const std::string& bus_id);

  // The node's GPUs into `facts` (kept where sysfs gave them: `facts` already has GPUs), and every pair of
  // them; what the sources name that is not there goes to `notes`.
  void settle(NodeFacts& facts, std::vector<std::string>& notes);

  // After settle: the GPU's index, or -1.
  int by_bus(const std::string& bus_id) const;
  int by_index(int nvidia_smi_index) const;
  // `assumed` is set where the CUDA index was taken as nvidia-smi's.
  int by_cuda(int cuda_index, bool* assumed = nullptr) const;
  std::size_t count() const { return bus_ids_.size(); }

 private:
  std::set<std::string> named_;
  int most_index_ = -1;
  std::map<int, std::string> cuda_;
  std::vector<std::string> bus_ids_;  // the settled GPUs' bus ids in index order ("" where only an index)
};

}  // namespace k25
