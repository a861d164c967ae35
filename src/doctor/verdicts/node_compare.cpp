// Field by field comparison of two hosts' node facts and backends, matched by GPU index, pair and bus id.
#include "doctor/verdicts/node_compare.hpp"

#include <map>
#include <set>

#include <fmt/format.h>

namespace k25 {
namespace {

constexpr double kMeasuredRatioBand = 1.25;

std::string or_dash(const std::string& text) {
  return text.empty() ? "-" : text;
}

std::string nccl_path_text(PathClass path) {
  return path == PathClass::unknown ? std::string() : path_class_id(path);
}

std::string transports_text(const NodePair& pair) {
  std::vector<std::string> names;
  for (const NcclPairTransport& transport : pair.nccl_transports) names.push_back(transport.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string training_text(int gen, int width) {
  return gen > 0 || width > 0 ? fmt::format("Gen{} x{}", gen, width) : "-";
}

class Differences {
 public:
  void add(const std::string& what, const std::string& subject, const std::string& a, const std::string& b) {
    if (a != b) list_.push_back({what, subject, or_dash(a), or_dash(b)});
  }
  std::vector<NodeDifference> take() { return std::move(list_); }

 private:
  std::vector<NodeDifference> list_;
};

void compare_gpus(const NodeFacts& a, const NodeFacts& b, Differences& out) {
  out.add("GPUs", "", std::to_string(a.gpus.size()), std::to_string(b.gpus.size()));
  for (std::size_t i = 0; i < a.gpus.size() && i < b.gpus.size(); ++i) {
    const NodeGpu &x = a.gpus[i], &y = b.gpus[i];
    const std::string gpu = fmt::format("GPU {}", i);
    out.add("GPU", gpu, x.name, y.name);
    out.add("bus id", gpu, x.bus_id, y.bus_id);
    out.add("link", gpu, training_text(x.link_gen, x.link_width), training_text(y.link_gen, y.link_width));
    out.add("link max", gpu,
            training_text(x.gpu_gen_max, x.gpu_width_max) + " (slot " +
                training_text(x.port_gen_max, x.port_width_max) + ")",
            training_text(y.gpu_gen_max, y.gpu_width_max) + " (slot " +
                training_text(y.port_gen_max, y.port_width_max) + ")");
    out.add("NUMA node", gpu, std::to_string(x.numa_node), std::to_string(y.numa_node));
    out.add("IOMMU group type", gpu, x.iommu_type, y.iommu_type);
    out.add("NVLinks", gpu, x.nvlinks < 0 ? "" : std::to_string(x.nvlinks),
            y.nvlinks < 0 ? "" : std::to_string(y.nvlinks));
  }
}

void compare_pairs(const NodeFacts& a, const NodeFacts& b, Differences& out) {
  for (const NodePair& x : a.pairs) {
    const NodePair* y = find_pair(b, x.a, x.b);
    if (y == nullptr) continue;
    const std::string pair = fmt::format("GPU pair {}-{}", x.a, x.b);
    out.add("path", pair, path_class_id(x.path), path_class_id(y->path));
    out.add("NVLinks", pair, x.nvlinks < 0 ? "" : std::to_string(x.nvlinks),
            y->nvlinks < 0 ? "" : std::to_string(y->nvlinks));
    out.add("NVML P2P read/write", pair, x.p2p_read.empty() ? "" : x.p2p_read + " / " + x.p2p_write,
            y->p2p_read.empty() ? "" : y->p2p_read + " / " + y->p2p_write);
    out.add("NCCL path", pair, nccl_path_text(x.nccl_path), nccl_path_text(y->nccl_path));
    out.add("NCCL route", pair, nccl_path_text(x.nccl_route), nccl_path_text(y->nccl_route));
    out.add("NCCL transport", pair, transports_text(x), transports_text(*y));
    out.add("NCCL P2P disabled", pair, x.nccl_p2p_disabled ? "yes" : "", y->nccl_p2p_disabled ? "yes" : "");
  }
}

std::string acs_text(const NodeBridge& bridge) {
  if (bridge.acs != "read") return bridge.acs;
  return bridge.acs_redirects ? "redirects (" + bridge.acs_bits + ")"
                              : "no redirect (" + bridge.acs_bits + ")";
}

void compare_bridges(const NodeFacts& a, const NodeFacts& b, Differences& out) {
  std::map<std::string, const NodeBridge*> in_b;
  for (const NodeBridge& bridge : b.bridges) in_b[bridge.bus_id] = &bridge;
  std::set<std::string> seen;
  for (const NodeBridge& x : a.bridges) {
    seen.insert(x.bus_id);
    const auto y = in_b.find(x.bus_id);
    const std::string bridge = "bridge " + x.bus_id;
    if (y == in_b.end()) {
      out.add("bridge", bridge, "present", "");
      continue;
    }
    out.add("ACS", bridge, acs_text(x), acs_text(*y->second));
    if (x.port_type == "switch upstream port" || y->second->port_type == "switch upstream port")
      out.add("link", bridge, training_text(x.link_gen, x.link_width),
              training_text(y->second->link_gen, y->second->link_width));
  }
  for (const NodeBridge& y : b.bridges)
    if (seen.count(y.bus_id) == 0) out.add("bridge", "bridge " + y.bus_id, "", "present");
}

void compare_host(const NodeFacts& a, const NodeFacts& b, Differences& out) {
  out.add("IOMMU", "", a.iommu.mode, b.iommu.mode);
  out.add("kernel command line (IOMMU)", "", a.iommu.cmdline_words, b.iommu.cmdline_words);
  out.add("driver", "", a.driver_version, b.driver_version);
  out.add("CUDA (driver)", "", a.cuda_driver_version, b.cuda_driver_version);
  out.add("NCCL", "", a.nccl_version, b.nccl_version);
  out.add("NCCL environment", "", fmt::format("{}", fmt::join(a.nccl.environment, "; ")),
          fmt::format("{}", fmt::join(b.nccl.environment, "; ")));
}

void compare_measured(const NodeFacts& a, const NodeFacts& b, Differences& out) {
  if (a.p2p.status != "measured" || b.p2p.status != "measured") return;
  const auto ratio_differs = [](double x, double y) {
    return x > 0 && y > 0 && (x / y > kMeasuredRatioBand || y / x > kMeasuredRatioBand);
  };
  for (const P2pDirection& x : a.p2p.directions)
    for (const P2pDirection& y : b.p2p.directions) {
      if (x.src != y.src || x.dst != y.dst) continue;
      const std::string subject = fmt::format("GPU {} -> {}", x.src, x.dst);
      const auto figure = [&](const char* what, double xv, double yv) {
        if (ratio_differs(xv, yv))
          out.add(what, subject, fmt::format("{:.1f} GB/s", xv),
                  fmt::format("{:.1f} GB/s (x{:.2f})", yv, yv / xv));
      };
      figure("P2P push measured", x.push_gbps, y.push_gbps);
      figure("P2P pull measured", x.pull_gbps, y.pull_gbps);
      figure("P2P memcpy measured", x.memcpy_gbps, y.memcpy_gbps);
    }
}

std::string backend_key(const BackendRun& run) {
  return run.bytes ? fmt::format("{} {} B", run.kind, *run.bytes)
                   : fmt::format("{} (size unknown)", run.kind);
}

void compare_backends(const BackendsSeen& a, const BackendsSeen& b, Differences& out) {
  if (a.runs.empty() || b.runs.empty()) return;  // a side without backends has nothing to compare
  std::map<std::string, std::set<std::string>> in_a, in_b;
  for (const BackendRun& run : a.runs) in_a[backend_key(run)].insert(run.backend);
  for (const BackendRun& run : b.runs) in_b[backend_key(run)].insert(run.backend);
  std::set<std::string> keys;
  for (const auto& [key, names] : in_a) keys.insert(key);
  for (const auto& [key, names] : in_b) keys.insert(key);
  for (const std::string& key : keys) {
    const auto joined = [&](const std::map<std::string, std::set<std::string>>& side) {
      const auto found = side.find(key);
      return found == side.end() ? std::string() : fmt::format("{}", fmt::join(found->second, ", "));
    };
    out.add("backend that ran", key, joined(in_a), joined(in_b));
  }
}

}  // namespace

std::string NodeDifference::line() const {
  return subject.empty() ? fmt::format("{}: {} | {}", what, a, b)
                         : fmt::format("{}: {}: {} | {}", what, subject, a, b);
}

std::vector<NodeDifference> compare_nodes(const DoctorDocument& a, const DoctorDocument& b) {
  Differences out;
  compare_host(a.model.facts, b.model.facts, out);
  compare_gpus(a.model.facts, b.model.facts, out);
  compare_pairs(a.model.facts, b.model.facts, out);
  compare_bridges(a.model.facts, b.model.facts, out);
  compare_measured(a.model.facts, b.model.facts, out);
  compare_backends(a.backends, b.backends, out);
  return out.take();
}

}  // namespace k25
