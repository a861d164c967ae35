// Settling the node's GPUs from what the sources name, and turning each way of naming one into its index.
#include "doctor/readers/gpu_identity.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "topology/sysfs_text.hpp"

namespace k25 {

void GpuIdentity::name_bus(const std::string& bus_id) {
  if (!bus_id.empty()) named_.insert(to_lower(bus_id));
}

void GpuIdentity::name_index(int index) {
  most_index_ = std::max(most_index_, index);
}

void GpuIdentity::learn_cuda(int cuda_index, const std::string& bus_id) {
  if (cuda_index >= 0 && !bus_id.empty()) cuda_.emplace(cuda_index, to_lower(bus_id));
}

void GpuIdentity::settle(NodeFacts& facts, std::vector<std::string>& notes) {
  if (facts.gpus.empty()) {
    std::vector<std::string> bus_ids(named_.begin(), named_.end());
    const int by_index = most_index_ + 1;
    if (bus_ids.empty())
      bus_ids.assign(static_cast<std::size_t>(std::max(by_index, 0)), "");
    else if (by_index > static_cast<int>(bus_ids.size()))
      notes.push_back(fmt::format(
          "the inputs show GPU indices up to {}, but name the bus ids of {} GPUs: the GPUs without a bus id are left out",
          most_index_, bus_ids.size()));
    for (std::size_t i = 0; i < bus_ids.size(); ++i) {
      NodeGpu gpu;
      gpu.index = static_cast<int>(i);
      gpu.bus_id = bus_ids[i];
      facts.gpus.push_back(std::move(gpu));
    }
  } else {
    std::vector<std::string> unknown;
    for (const std::string& bus_id : named_)
      if (std::none_of(facts.gpus.begin(), facts.gpus.end(),
                       [&](const NodeGpu& gpu) { return gpu.bus_id == bus_id; }))
        unknown.push_back(bus_id);
    if (!unknown.empty())
      notes.push_back(
          fmt::format("the inputs name GPUs this host's sysfs does not show: {}", fmt::join(unknown, ", ")));
  }
  bus_ids_.clear();
  for (const NodeGpu& gpu : facts.gpus) bus_ids_.push_back(gpu.bus_id);
  if (facts.pairs.empty())
    for (std::size_t a = 0; a < facts.gpus.size(); ++a)
      for (std::size_t b = a + 1; b < facts.gpus.size(); ++b) {
        NodePair pair;
        pair.a = static_cast<int>(a);
        pair.b = static_cast<int>(b);
        facts.pairs.push_back(std::move(pair));
      }
}

int GpuIdentity::by_bus(const std::string& bus_id) const {
  if (bus_id.empty()) return -1;
  const std::string wanted = to_lower(bus_id);
  for (std::size_t i = 0; i < bus_ids_.size(); ++i)
    if (bus_ids_[i] == wanted) return static_cast<int>(i);
  return -1;
}

int GpuIdentity::by_index(int nvidia_smi_index) const {
  return nvidia_smi_index >= 0 && nvidia_smi_index < static_cast<int>(bus_ids_.size()) ? nvidia_smi_index
                                                                                       : -1;
}

int GpuIdentity::by_cuda(int cuda_index, bool* assumed) const {
  if (assumed != nullptr) *assumed = false;
  const auto known = cuda_.find(cuda_index);
  if (known != cuda_.end()) {
    const int index = by_bus(known->second);
    if (index >= 0) return index;
  }
  if (assumed != nullptr) *assumed = true;
  return by_index(cuda_index);
}

}  // namespace k25
