// Filling the node model from the pasted families and this host's facts, family by family.
#include "doctor/readers/node_builder.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <fmt/format.h>

#include "doctor/readers/gpu_identity.hpp"
#include "topology/link_limits.hpp"

namespace k25 {
namespace {

constexpr const char* kSysfs = "sysfs";

void observe(NodeModel& model, std::string subject, FactKind kind, std::string value,
             const FactSource& source) {
  if (!value.empty()) model.observations.push_back({std::move(subject), kind, std::move(value), source});
}

std::string link_words(int gen, int width) {
  return gen > 0 && width > 0 ? fmt::format("Gen{} x{}", gen, width) : std::string();
}

// A value as sources are compared by: case, "NVIDIA", dashes and a version's build suffix aside.
std::string normalized(FactKind kind, std::string value) {
  std::transform(value.begin(), value.end(), value.begin(), [](unsigned char c) { return std::tolower(c); });
  if (kind == FactKind::gpu_name) {
    for (const char* word : {"nvidia corporation ", "nvidia "})
      for (std::size_t at; (at = value.find(word)) != std::string::npos;)
        value.erase(at, std::string(word).size());
    std::replace(value.begin(), value.end(), '-', ' ');
  }
  if (kind == FactKind::nccl_version) value = value.substr(0, value.find('+'));
  return value;
}

// Sources of one fact that give different values (NVLink against a PCIe class is none: both hold).
void find_disagreements(NodeModel& model) {
  std::map<std::pair<std::string, FactKind>, std::vector<const Observation*>> facts;
  std::vector<std::pair<std::string, FactKind>> order;
  for (const Observation& observation : model.observations) {
    const auto key = std::make_pair(observation.subject, observation.kind);
    if (observation.kind == FactKind::pair_path && observation.value == path_class_id(PathClass::nvlink))
      continue;
    if (facts[key].empty()) order.push_back(key);
    facts[key].push_back(&observation);
  }
  for (const auto& key : order) {
    Disagreement disagreement{key.first, key.second, {}};
    std::set<std::string> values;
    for (const Observation* observation : facts[key])
      if (values.insert(normalized(key.second, observation->value)).second)
        disagreement.said.push_back(*observation);
    if (values.size() > 1) model.disagreements.push_back(std::move(disagreement));
  }
}

std::string bracket_name(const std::string& lspci_name) {
  const std::size_t open = lspci_name.find('['), close = lspci_name.find(']', open);
  return open == std::string::npos || close == std::string::npos
             ? std::string()
             : lspci_name.substr(open + 1, close - open - 1);
}

bool placeholder_name(const std::string& name) {
  return name.empty() || name.rfind("NVIDIA device 0x", 0) == 0;
}

std::string bridge_port_words(const std::string& lspci_type) {
  if (lspci_type == "Root Port") return "root port";
  if (lspci_type == "Upstream Port") return "switch upstream port";
  if (lspci_type == "Downstream Port") return "switch downstream port";
  std::string lower = lspci_type;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower;
}

bool of_host(const std::string& line_host, const std::string& host) {
  return line_host.empty() || host.empty() || line_host == host;
}

// What identifies the GPUs, from every family, before any fact is filled in.
void name_gpus(const PastedInputs& in, const std::string& host, GpuIdentity& ids) {
  for (const LspciDump& dump : in.lspci)
    for (const LspciFunction& function : dump.functions)
      if (is_nvidia_gpu(function)) ids.name_bus(function.bus_id);
  for (const NcclTopologyXml& dump : in.dumps)
    for (const NcclXmlGpu& gpu : dump.gpus) {
      ids.name_bus(gpu.bus_id);
      ids.learn_cuda(gpu.dev, gpu.bus_id);
    }
  for (const TopoMatrix& matrix : in.topo) {
    ids.name_index(matrix.gpus - 1);  // the header's GPU columns, also where the paste cut rows off
    for (const TopoGpuRow& row : matrix.rows) ids.name_index(row.gpu);
  }
  for (const NcclTestsHeader& header : in.nccl_tests)
    for (const NcclTestsDevice& device : header.devices)
      if (of_host(device.host, host)) {
        ids.name_bus(device.bus_id);
        ids.learn_cuda(device.cuda_index, device.bus_id);
        if (device.bus_id.empty()) ids.name_index(device.cuda_index);
      }
  for (const BandwidthTests& tests : in.bandwidth)
    for (const BandwidthDevice& device : tests.devices) {
      ids.name_bus(device.bus_id);
      ids.learn_cuda(device.cuda_index, device.bus_id);
      if (device.bus_id.empty()) ids.name_index(device.cuda_index);
    }
  for (const NcclLog& log : in.logs) {
    for (const NcclCommunicator& communicator : log.seen.communicators)
      for (const NcclRankGpu& rank : communicator.ranks)
        if (of_host(rank.host, host)) {
          ids.name_bus(rank.bus_id);
          ids.learn_cuda(rank.cuda_dev, rank.bus_id);
          if (rank.bus_id.empty()) ids.name_index(rank.cuda_dev);  // NCCL before 2.7: cudaDev alone
        }
    for (const NcclRankConnection& connection : log.seen.connections)
      for (const std::string& bracket : {connection.from_device, connection.to_device}) {
        if (bracket.empty()) continue;
        if (bracket_is_bus_id(bracket))
          ids.name_bus(bus_id_from_nccl(bracket));
        else if (connection.transport.kind != NcclTransportKind::net)
          ids.name_index(small_number(bracket));
      }
    for (const NcclGraphPath& path : log.graph_paths) {
      ids.name_bus(path.from_bus);
      ids.name_bus(path.to_bus);
    }
  }
  for (const DcgmDiag& diag : in.dcgm)
    for (const DcgmResult& result : diag.results) ids.name_index(result.gpu);
}

void observe_this_host(NodeModel& model) {
  const NodeFacts& facts = model.facts;
  for (const NodeGpu& gpu : facts.gpus) {
    const FactSource source{kSysfs, 0, fmt::format("{}", gpu.bus_id)};
    if (gpu.numa_node >= 0)
      observe(model, gpu_subject(gpu.index), FactKind::gpu_numa, std::to_string(gpu.numa_node), source);
    observe(model, gpu_subject(gpu.index), FactKind::gpu_link, link_words(gpu.link_gen, gpu.link_width),
            source);
    if (!placeholder_name(gpu.name))
      observe(model, gpu_subject(gpu.index), FactKind::gpu_name, gpu.name, {"NVML", 0, gpu.bus_id});
  }
  for (const NodePair& pair : facts.pairs)
    if (pair.path != PathClass::unknown)
      observe(model, pair_subject(pair.a, pair.b), FactKind::pair_path, path_class_id(pair.path),
              {kSysfs, 0,
               pair.bridges.empty() ? std::string("-") : fmt::format("{}", fmt::join(pair.bridges, " > "))});
  for (const NodeBridge& bridge : facts.bridges)
    if (bridge.acs == "read")
      observe(model, bridge_subject(bridge.bus_id), FactKind::bridge_acs,
              bridge.acs_redirects ? "redirects" : "no redirect", {kSysfs, 0, bridge.acs_bits});
  if (facts.iommu.mode != "unknown")
    observe(model, kHostSubject, FactKind::iommu, facts.iommu.mode, {kSysfs, 0, facts.iommu.evidence});
}

void fill_lspci(const LspciDump& dump, const GpuIdentity& ids, NodeModel& model) {
  NodeFacts& facts = model.facts;
  std::map<std::string, const LspciFunction*> by_id;
  for (const LspciFunction& function : dump.functions) by_id[function.bus_id] = &function;
  const PciTree tree = lspci_pci_tree(dump);
  for (const PciGpu& pci : tree.gpus) {
    const int index = ids.by_bus(pci.node.bus_id);
    if (index < 0) continue;
    const LspciFunction& function = *by_id.at(pci.node.bus_id);
    NodeGpu& gpu = facts.gpus[static_cast<std::size_t>(index)];
    const std::string subject = gpu_subject(index);
    const std::string name = bracket_name(function.name);
    observe(model, subject, FactKind::gpu_name, name, function.header);
    if (!name.empty() && placeholder_name(gpu.name)) gpu.name = name;
    if (function.numa_node >= 0) {
      observe(model, subject, FactKind::gpu_numa, std::to_string(function.numa_node), function.header);
      if (gpu.numa_node < 0) gpu.numa_node = function.numa_node;
    }
    observe(model, subject, FactKind::gpu_link, link_words(function.sta_gen, function.sta_width),
            function.link_status);
    if (gpu.link_width == 0 && function.sta_width > 0) {
      gpu.link_gen = function.sta_gen;
      gpu.link_width = function.sta_width;
    }
    if (gpu.gpu_width_max == 0 && function.cap_width > 0) {
      gpu.gpu_gen_max = function.cap_gen;
      gpu.gpu_width_max = function.cap_width;
    }
    if (!pci.path.empty()) {
      if (gpu.port.empty()) gpu.port = pci.path.back();
      const auto port = by_id.find(pci.path.back());
      if (port != by_id.end() && gpu.port_width_max == 0 && port->second->cap_width > 0) {
        gpu.port_gen_max = port->second->cap_gen;
        gpu.port_width_max = port->second->cap_width;
      }
    }
  }
  for (const auto& entry : tree.bridges) {
    const std::string& bus_id = entry.first;
    if (std::any_of(facts.bridges.begin(), facts.bridges.end(),
                    [&](const NodeBridge& b) { return b.bus_id == bus_id; }))
      continue;
    const LspciFunction& function = *by_id.at(bus_id);
    NodeBridge bridge;
    bridge.bus_id = bus_id;
    bridge.port_type = bridge_port_words(function.port_type);
    bridge.port_type_from = function.port_type.empty() ? "" : "lspci";
    bridge.parent = function.parent;
    if (bridge.parent.empty())
      for (const PciGpu& gpu : tree.gpus) {
        const auto at = std::find(gpu.path.begin(), gpu.path.end(), bus_id);
        if (at != gpu.path.end() && at != gpu.path.begin()) bridge.parent = *(at - 1);
      }
    bridge.link_gen = function.sta_gen;
    bridge.link_width = function.sta_width;
    bridge.gen_max = function.cap_gen;
    bridge.width_max = function.cap_width;
    if (!function.acs_control.empty()) {
      bridge.acs = "read";
      bridge.acs_bits = function.acs_control;
      bridge.acs_redirects = function.acs_control.find("ReqRedir+") != std::string::npos ||
                             function.acs_control.find("CmpltRedir+") != std::string::npos ||
                             function.acs_control.find("EgressCtrl+") != std::string::npos;
      observe(model, bridge_subject(bus_id), FactKind::bridge_acs,
              bridge.acs_redirects ? "redirects" : "no redirect", function.acs);
    } else {
      bridge.acs = function.access_denied ? "needs root" : "not read";
    }
    facts.bridges.push_back(std::move(bridge));
  }
  for (std::size_t i = 0; i < tree.gpus.size(); ++i)
    for (std::size_t k = i + 1; k < tree.gpus.size(); ++k) {
      const int a = ids.by_bus(tree.gpus[i].node.bus_id), b = ids.by_bus(tree.gpus[k].node.bus_id);
      NodePair* pair = a >= 0 && b >= 0 ? find_pair(facts, a, b) : nullptr;
      if (pair == nullptr) continue;
      const PciePath path = pcie_path(tree.gpus[i], tree.gpus[k]);
      if (path.path == PathClass::unknown) continue;
      observe(model, pair_subject(a, b), FactKind::pair_path, path_class_id(path.path),
              by_id.at(tree.gpus[i].node.bus_id)->header);
      if (pair->path == PathClass::unknown) pair->path = path.path;
      if (pair->bridges.empty()) pair->bridges = path.bridges;
    }
}

void fill_topo(const TopoMatrix& matrix, const GpuIdentity& ids, NodeModel& model) {
  NodeFacts& facts = model.facts;
  std::set<std::pair<int, int>> seen;
  for (const TopoCell& cell : matrix.cells) {
    const int a = ids.by_index(cell.row), b = ids.by_index(cell.column);
    NodePair* pair = a >= 0 && b >= 0 && a != b ? find_pair(facts, a, b) : nullptr;
    if (pair == nullptr || !seen.insert({std::min(a, b), std::max(a, b)}).second) continue;
    const std::string subject = pair_subject(a, b);
    if (matrix.p2p) {
      const std::string words = p2p_status_words(cell.word);
      if (words.empty()) continue;
      observe(model, subject, FactKind::pair_p2p, words, cell.source);
      const bool read = matrix.capability != "write", write = matrix.capability.empty() ||
                                                              matrix.capability == "write" ||
                                                              matrix.capability == "read and write";
      if (read && pair->p2p_read.empty() && matrix.capability != "NVLink" && matrix.capability != "atomics")
        pair->p2p_read = words;
      if (write && pair->p2p_write.empty()) pair->p2p_write = words;
      continue;
    }
    int nvlinks = -1;
    const PathClass path = path_class_from_word(cell.word, &nvlinks);
    if (path == PathClass::unknown) continue;
    observe(model, subject, FactKind::pair_path, path_class_id(path), cell.source);
    if (path == PathClass::nvlink) {
      pair->path = PathClass::nvlink;
      if (nvlinks > 0) {
        observe(model, subject, FactKind::pair_nvlinks, std::to_string(nvlinks), cell.source);
        if (pair->nvlinks < 0) pair->nvlinks = nvlinks;
      }
    } else if (pair->path == PathClass::unknown) {
      pair->path = path;
    }
  }
  for (const TopoGpuRow& row : matrix.rows) {
    const int index = ids.by_index(row.gpu);
    if (index < 0) continue;
    NodeGpu& gpu = facts.gpus[static_cast<std::size_t>(index)];
    if (gpu.local_cpus.empty() && row.cpu_affinity != "N/A") gpu.local_cpus = row.cpu_affinity;
    const int numa = small_number(row.numa_affinity);
    if (numa >= 0) {
      observe(model, gpu_subject(index), FactKind::gpu_numa, std::to_string(numa), row.source);
      if (gpu.numa_node < 0) gpu.numa_node = numa;
    }
  }
  if (matrix.cut)
    facts.nccl.notes.push_back(
        fmt::format("{}: the topo matrix is cut after {} of its {} GPU rows: read as far as it goes",
                    matrix.header.where(), matrix.rows_read, matrix.gpus));
}

void fill_dump(const NcclTopologyXml& dump, const GpuIdentity& ids, NodeModel& model) {
  NodeFacts& facts = model.facts;
  if (facts.nccl.topology_file.empty()) facts.nccl.topology_file = dump.file;
  if (!dump.stopped.empty())
    facts.nccl.notes.push_back(
        fmt::format("{}: NCCL's topology dump stops at {}: read as far as it goes (its {} GPUs)", dump.file,
                    dump.stopped, dump.gpus.size()));
  for (const NcclXmlGpu& from : dump.gpus) {
    const int index = ids.by_bus(from.bus_id);
    if (index < 0) continue;
    NodeGpu& gpu = facts.gpus[static_cast<std::size_t>(index)];
    if (gpu.sm == 0) gpu.sm = small_number(from.sm) > 0 ? small_number(from.sm) : 0;
    if (from.numa_id >= 0) {
      observe(model, gpu_subject(index), FactKind::gpu_numa, std::to_string(from.numa_id), from.source);
      if (gpu.numa_node < 0) gpu.numa_node = from.numa_id;
    }
    const int gen = pcie_generation_of_speed(from.link_speed);
    observe(model, gpu_subject(index), FactKind::gpu_link, link_words(gen, from.link_width), from.source);
    if (gpu.link_width == 0 && from.link_width > 0) {
      gpu.link_gen = gen;
      gpu.link_width = from.link_width;
    }
    int links = 0;
    for (const NcclXmlNvlink& link : from.nvlinks) links += link.count;
    if (gpu.nvlinks < 0 && !from.nvlinks.empty()) gpu.nvlinks = links;
  }
  for (std::size_t i = 0; i < dump.gpus.size(); ++i)
    for (std::size_t k = i + 1; k < dump.gpus.size(); ++k) {
      const int a = ids.by_bus(dump.gpus[i].bus_id), b = ids.by_bus(dump.gpus[k].bus_id);
      NodePair* pair = a >= 0 && b >= 0 ? find_pair(facts, a, b) : nullptr;
      if (pair == nullptr) continue;
      const PathClass path = nccl_xml_path(dump.gpus[i], dump.gpus[k]);
      pair->nccl_path = path;
      observe(model, pair_subject(a, b), FactKind::pair_path, path_class_id(path), dump.gpus[i].source);
      // sysfs cannot see NVLink; without NVML's answer, NCCL's is the best there is.
      if (path == PathClass::nvlink && pair->p2p_nvlink.empty()) pair->path = PathClass::nvlink;
      if (pair->path == PathClass::unknown) pair->path = path;
    }
}

void fill_nccl_tests(const NcclTestsHeader& header, const std::string& host, const GpuIdentity& ids,
                     NodeModel& model) {
  for (const NcclTestsDevice& device : header.devices) {
    if (!of_host(device.host, host)) continue;
    const int index = device.bus_id.empty() ? ids.by_cuda(device.cuda_index) : ids.by_bus(device.bus_id);
    if (index < 0) continue;
    NodeGpu& gpu = model.facts.gpus[static_cast<std::size_t>(index)];
    observe(model, gpu_subject(index), FactKind::gpu_name, device.name, device.source);
    if (placeholder_name(gpu.name) && !device.name.empty()) gpu.name = device.name;
  }
  if (!header.nccl_version.empty()) {
    observe(model, kHostSubject, FactKind::nccl_version, header.nccl_version, header.version_source);
    if (model.facts.nccl_version.empty()) model.facts.nccl_version = header.nccl_version;
  }
}

PairBandwidth& bandwidth_of(NodeModel& model, int src, int dst, const std::string& tool) {
  for (PairBandwidth& figures : model.bandwidth)
    if (figures.src == src && figures.dst == dst && figures.tool == tool) return figures;
  PairBandwidth figures;
  figures.src = src;
  figures.dst = dst;
  figures.tool = tool;
  model.bandwidth.push_back(figures);
  return model.bandwidth.back();
}

void fill_bandwidth(const BandwidthTests& tests, const GpuIdentity& ids, NodeModel& model) {
  // The test's own device list first: its CUDA indices are its process's.
  std::map<int, int> gpu_of;
  for (const BandwidthDevice& device : tests.devices) {
    const int index = device.bus_id.empty() ? ids.by_cuda(device.cuda_index) : ids.by_bus(device.bus_id);
    if (index < 0) continue;
    gpu_of[device.cuda_index] = index;
    NodeGpu& gpu = model.facts.gpus[static_cast<std::size_t>(index)];
    observe(model, gpu_subject(index), FactKind::gpu_name, device.name, device.source);
    if (placeholder_name(gpu.name) && !device.name.empty()) gpu.name = device.name;
  }
  const auto gpu = [&](int cuda) {
    const auto found = gpu_of.find(cuda);
    return found != gpu_of.end() ? found->second : ids.by_cuda(cuda);
  };
  for (const PeerAccess& access : tests.access) {
    const int a = gpu(access.from), b = gpu(access.to);
    if (a < 0 || b < 0 || a == b) continue;
    observe(model, pair_subject(a, b), FactKind::pair_p2p,
            access.can ? "OK" : "no peer access (cudaDeviceCanAccessPeer 0)", access.source);
  }
  for (const BandwidthMatrix& matrix : tests.matrices) {
    if (matrix.kind == MatrixKind::latency || matrix.p2p < 0) continue;
    for (const BandwidthCell& cell : matrix.cells) {
      if (cell.row == cell.column || cell.value < 0) continue;
      int src = gpu(cell.row), dst = gpu(cell.column);
      if (!matrix.row_is_source) std::swap(src, dst);
      if (src < 0 || dst < 0 || src == dst) continue;
      if (matrix.kind == MatrixKind::connectivity) {
        if (cell.value == 0)
          observe(model, pair_subject(src, dst), FactKind::pair_p2p,
                  "no peer access (P2P Connectivity Matrix 0)", cell.source);
        continue;
      }
      PairBandwidth& figures = bandwidth_of(model, src, dst, matrix.tool);
      const bool enabled = matrix.p2p == 1, bidirectional = matrix.kind == MatrixKind::bidirectional;
      double& slot =
          bidirectional ? (enabled ? figures.bidirectional_enabled_gbps : figures.bidirectional_disabled_gbps)
                        : (enabled ? figures.p2p_enabled_gbps : figures.p2p_disabled_gbps);
      if (slot >= 0) continue;  // the first matrix of its kind (P2P writes before reads)
      slot = cell.value;
      if (!bidirectional) (enabled ? figures.enabled_source : figures.disabled_source) = cell.source;
    }
    if (matrix.cut)
      model.facts.nccl.notes.push_back(
          fmt::format("{}: '{}' is cut after {} of its {} rows: read as far as it goes",
                      matrix.title_source.where(), matrix.title, matrix.rows_read, matrix.columns.size()));
  }
}

void fill_dcgm(const DcgmDiag& diag, const GpuIdentity& ids, NodeModel& model) {
  for (DcgmResult result : diag.results) {
    result.gpu = result.gpu >= 0 ? ids.by_index(result.gpu) : -1;
    model.dcgm.push_back(std::move(result));
  }
}

void fill_cmdline(const KernelCmdline& cmdline, NodeModel& model) {
  if (cmdline.source.file.empty()) return;
  IommuState& iommu = model.facts.iommu;
  const std::string words = fmt::format("{}", fmt::join(cmdline.words, " "));
  observe(model, kHostSubject, FactKind::iommu, cmdline.mode.empty() ? std::string() : cmdline.mode,
          cmdline.source);
  if (model.this_host && iommu.mode != "unknown") return;
  iommu.cmdline_words = words;
  iommu.mode = cmdline.mode.empty() ? "unknown" : cmdline.mode;
  iommu.evidence =
      words.empty()
          ? fmt::format("the kernel command line pasted ({}) has no IOMMU word: the kernel's default holds",
                        cmdline.source.where())
          : fmt::format("the kernel command line pasted ({}): {}{}", cmdline.source.where(), words,
                        iommu.mode == "translated"
                            ? "; the IOMMU groups' type (/sys/kernel/iommu_groups/*/type) would confirm it"
                            : "");
}

// What a node read from pasted files alone could not see, one sentence each.
void say_unseen(const NodeBuildInputs& inputs, NodeModel& model) {
  NodeFacts& facts = model.facts;
  if (model.this_host) return;
  facts.unseen.push_back(fmt::format(
      "this host's sysfs and NVML: not read, the inputs are of {} (give --root DIR with a copy of its sys/ and proc/ to read them)",
      facts.host.empty() ? "another node" : facts.host));
  if (inputs.pasted.lspci.empty() && inputs.pasted.dumps.empty())
    facts.unseen.push_back(
        "bridges and ACS: no lspci in the inputs (paste `sudo lspci -vvv` and `lspci -tv`)");
  if (facts.iommu.mode == "unknown")
    facts.unseen.push_back("IOMMU: no kernel command line in the inputs (paste `cat /proc/cmdline`)");
  if (facts.gpus.empty())
    facts.unseen.push_back(
        "GPUs: no input names the node's GPUs (paste `nvidia-smi topo -m` or NCCL's INFO log)");
}

}  // namespace

std::map<std::string, int> hosts_named(const PastedInputs& inputs) {
  std::map<std::string, int> hosts;
  for (const NcclLog& log : inputs.logs)
    for (const auto& [host, lines] : log.hosts) hosts[host] += lines;
  for (const NcclTestsHeader& header : inputs.nccl_tests)
    for (const NcclTestsDevice& device : header.devices) ++hosts[device.host];
  hosts.erase("");
  return hosts;
}

NodeModel build_node_model(NodeBuildInputs inputs) {
  NodeModel model;
  model.this_host = inputs.this_host.has_value();
  if (inputs.this_host) {
    model.facts = std::move(*inputs.this_host);
  } else {
    model.facts.root = "";
    model.facts.nvml = "not asked: the facts are the inputs', not this host's";
    model.facts.iommu.evidence = "not read from this host: the inputs are another node's";
  }
  model.facts.host = inputs.host;
  model.host_from = inputs.host_from;
  if (model.this_host) observe_this_host(model);

  GpuIdentity ids;
  name_gpus(inputs.pasted, inputs.host, ids);
  ids.settle(model.facts, model.facts.nccl.notes);

  const PastedInputs& in = inputs.pasted;
  for (const LspciDump& dump : in.lspci) fill_lspci(dump, ids, model);
  for (const TopoMatrix& matrix : in.topo) fill_topo(matrix, ids, model);
  for (const NcclTopologyXml& dump : in.dumps) fill_dump(dump, ids, model);
  for (const NcclTestsHeader& header : in.nccl_tests) fill_nccl_tests(header, inputs.host, ids, model);
  for (const BandwidthTests& tests : in.bandwidth) fill_bandwidth(tests, ids, model);
  join_nccl_logs(in.logs, inputs.host, ids, model);
  for (const DcgmDiag& diag : in.dcgm) fill_dcgm(diag, ids, model);
  for (const KernelCmdline& cmdline : in.cmdlines) fill_cmdline(cmdline, model);
  const auto hosts = hosts_named(in);
  if (hosts.size() > 1) {
    std::vector<std::string> others;
    for (const auto& [host, lines] : hosts)
      if (host != inputs.host) others.push_back(host);
    model.facts.nccl.notes.push_back(fmt::format(
        "the inputs name {} hosts: the node is {} ({}); the lines of {} are left out of it, and NCCL's connections between hosts go through the network",
        hosts.size(), inputs.host, inputs.host_from, fmt::join(others, ", ")));
  }
  find_disagreements(model);
  say_unseen(inputs, model);
  return model;
}

}  // namespace k25
