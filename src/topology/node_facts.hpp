// What `k25comm doctor` (and every measure run, once per host) knows about one host's GPUs and what links
// them: per GPU its PCI address, NUMA node, nearby CPUs and link; the bridges on the GPUs' paths with their
// ACS bits; per GPU pair the path class, the bridges crossed, NVML's P2P status and NCCL's chosen transport;
// the IOMMU's mode; the driver, CUDA and NCCL versions; and what could not be seen. Plain data with its JSON
// form (report.json `topology.nodes[]`, doctor.json `node`): docs/report-fields.md lists every field.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "topology/gpu_paths.hpp"
#include "topology/iommu_state.hpp"
#include "transport/p2p_measurement.hpp"

namespace k25 {

struct NodeGpu {
  int index = 0;                             // position in bus id order on the host (nvidia-smi's order)
  std::string bus_id;                        // "0000:4f:00.0"; empty where only an index was seen
  std::string name;                          // NVML's name, else "NVIDIA device 0x2684"
  int sm = 0;                                // compute capability x 10 (120: sm_120); 0 unknown
  int numa_node = -1;                        // -1: none or unknown
  std::string local_cpus;                    // the CPUs nearest it ("0-35,72-107"), empty where unknown
  int link_gen = 0, link_width = 0;          // current
  int gpu_gen_max = 0, gpu_width_max = 0;    // what the GPU can train to
  int port_gen_max = 0, port_width_max = 0;  // what the port above it (the slot) can train to; 0 unknown
  std::string port;                          // that port's bus id, empty where the GPU is not below a bridge
  std::string iommu_group, iommu_type;
  int nvlinks = -1;  // active NVLinks (NVML); -1 unknown

  bool operator==(const NodeGpu&) const = default;
};

// A bridge on some GPU's path.
struct NodeBridge {
  std::string bus_id;
  std::string vendor, device;  // "0x10b5", "0x8747"
  std::string port_type;  // "root port", "switch upstream port", "switch downstream port", ...; empty unknown
  // "config space" where read there; "position" where config space needed root and the type was inferred from
  // the bridge's place on the GPUs' paths (first a root port, then switch upstream and downstream ports in
  // turn)
  std::string port_type_from;
  std::string parent;                                            // the bridge above it, empty for a root port
  int link_gen = 0, link_width = 0, gen_max = 0, width_max = 0;  // its own link, towards the host bridge
  std::string acs;             // "read" | "needs root" | "absent" | "not read"
  int acs_control = -1;        // the ACS control register where read
  std::string acs_bits;        // lspci's words ("SrcValid+ TransBlk- ReqRedir+ ...") where read
  bool acs_redirects = false;  // ReqRedir, CmpltRedir or EgressCtrl set

  bool operator==(const NodeBridge&) const = default;
};

// How NCCL connected two ranks, by the first word of what its log names after "via ".
enum class NcclTransportKind { p2p, shm, net, collnet, nvls, other };

// One transport NCCL's log names between a pair's GPUs: "P2P/CUMEM/read", "SHM/direct/direct".
struct NcclPairTransport {
  NcclTransportKind kind = NcclTransportKind::other;
  std::string name;

  bool operator==(const NcclPairTransport&) const = default;
};

// The kind of the transport NCCL's log calls `name` ("P2P/IPC/read": p2p; "NET/IB/0/GDRDMA": net).
NcclTransportKind nccl_transport_kind(const std::string& name);

struct NodePair {
  int a = 0, b = 0;                     // GPU indices, a < b
  PathClass path = PathClass::unknown;  // the hardware path: sysfs, lspci, nvidia-smi topo -m, NCCL's dump
  std::vector<std::string> bridges;     // bus ids crossed, from a's side to b's
  int nvlinks = -1;                     // NVLinks between the two (nvidia-smi's NV#); -1 unknown
  // NVML's nvmlDeviceGetP2PStatus in nvidia-smi topo -p2p's words ("OK", "chipset not supported", ...); empty
  // where NVML was not asked.
  std::string p2p_read, p2p_write, p2p_atomics, p2p_nvlink;
  PathClass nccl_path = PathClass::unknown;   // the path NCCL's topology dump gives; unknown without one
  PathClass nccl_route = PathClass::unknown;  // the path NCCL computed (its GRAPH path table: PHB where it
                                              // routes the pair through the CPU); unknown without one
  std::vector<NcclPairTransport> nccl_transports;  // what NCCL's log says it used between the two
  bool nccl_p2p_disabled = false;  // the log said "P2P is disabled between connected GPUs" for the pair

  bool operator==(const NodePair&) const = default;
};

// A measure run's rank on this host: its GPU and the CPUs it may run on.
struct RankOnNode {
  int rank = 0;
  std::string bus_id;
  std::string cpus;  // sched_getaffinity as a list ("0-13,28-41")

  bool operator==(const RankOnNode&) const = default;
};

// NCCL's own view, where doctor was given its topology dump or INFO log.
struct NcclView {
  std::string topology_file;             // NCCL_TOPO_DUMP_FILE's dump read, empty where none
  std::vector<std::string> log_files;    // NCCL_DEBUG=INFO logs read
  std::string version;                   // from the log
  std::vector<std::string> environment;  // "NCCL_P2P_DISABLE set by environment to 1", from the log
  std::vector<std::string> notes;        // what of the inputs could not be joined to this host's GPUs

  bool operator==(const NcclView&) const = default;
};

struct NodeFacts {
  std::string host;
  std::string root = "/";    // the root path the sysfs readers read under
  bool sysfs_found = false;  // <root>/sys/bus/pci/devices exists
  std::vector<NodeGpu> gpus;
  std::vector<NodeBridge> bridges;
  std::vector<NodePair> pairs;  // every pair of gpus, (0,1), (0,2), ... (1,2), ...
  IommuState iommu;
  std::string driver_version;       // NVIDIA kernel module
  std::string cuda_driver_version;  // the CUDA version the driver supports ("12.8")
  std::string nccl_version;         // the NCCL the run or the log used
  std::string nvml;                 // "read", or why not ("not loaded: ...")
  std::vector<RankOnNode> ranks;    // measure runs only
  NcclView nccl;
  P2pMeasurement p2p;               // measured copies between the GPUs (doctor, where GPUs are visible)
  std::vector<std::string> unseen;  // what could not be seen, one sentence each

  bool operator==(const NodeFacts&) const = default;
};

// The pair (a, b) of `facts`, a and b in either order; nullptr where there is none.
const NodePair* find_pair(const NodeFacts& facts, int a, int b);
NodePair* find_pair(NodeFacts& facts, int a, int b);
// The GPU at `bus_id` (any case); nullptr where there is none.
const NodeGpu* find_gpu(const NodeFacts& facts, const std::string& bus_id);

void to_json(nlohmann::json& j, const NodeGpu& g);
void from_json(const nlohmann::json& j, NodeGpu& g);
void to_json(nlohmann::json& j, const NodeBridge& b);
void from_json(const nlohmann::json& j, NodeBridge& b);
void to_json(nlohmann::json& j, const NodePair& p);
void from_json(const nlohmann::json& j, NodePair& p);
void to_json(nlohmann::json& j, const RankOnNode& r);
void from_json(const nlohmann::json& j, RankOnNode& r);
void to_json(nlohmann::json& j, const NcclView& v);
void from_json(const nlohmann::json& j, NcclView& v);
void to_json(nlohmann::json& j, const P2pDirection& d);
void from_json(const nlohmann::json& j, P2pDirection& d);
void to_json(nlohmann::json& j, const P2pMeasurement& m);
void from_json(const nlohmann::json& j, P2pMeasurement& m);
void to_json(nlohmann::json& j, const IommuState& i);
void from_json(const nlohmann::json& j, IommuState& i);
void to_json(nlohmann::json& j, const NodeFacts& f);
// Defensive: every field optional, wrong types refused with std::invalid_argument or nlohmann's type_error.
void from_json(const nlohmann::json& j, NodeFacts& f);

}  // namespace k25
