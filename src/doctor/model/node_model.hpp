// doctor's one model of a node: topology's facts of it (GPUs, bridges, pairs, IOMMU, versions: the same
// object a measuring run writes into report.json), filled from sysfs where doctor runs on the node and from
// every pasted input, and what only pasted text gives: NCCL's communicators and its connections by
// communicator and rank, the settings the environment made, NCCL's warnings, bandwidth matrices and DCGM's
// results. Each fact is also kept as every source gave it (observations), so that a verdict cites its
// evidence (file and line) and two sources that disagree are said.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/enum_names.hpp"
#include "doctor/model/fact_source.hpp"
#include "topology/node_facts.hpp"

namespace k25 {

// What an observation is about.
enum class FactKind {
  gpu_name,
  gpu_numa,
  gpu_link,
  pair_path,        // the hardware path class (PIX, PXB, PHB, NODE, SYS)
  pair_nvlinks,     // NVLinks between the pair (NV#)
  pair_p2p,         // whether the driver or CUDA gives P2P between the pair
  pair_nccl_route,  // the path NCCL computed for the pair (its GRAPH table)
  bridge_acs,
  iommu,
  nccl_version,
};

template <>
struct EnumNames<FactKind> {
  static constexpr std::array<std::pair<FactKind, std::string_view>, 10> values{{
      {FactKind::gpu_name, "GPU name"},
      {FactKind::gpu_numa, "NUMA node"},
      {FactKind::gpu_link, "PCIe link"},
      {FactKind::pair_path, "path"},
      {FactKind::pair_nvlinks, "NVLinks"},
      {FactKind::pair_p2p, "P2P"},
      {FactKind::pair_nccl_route, "NCCL's route"},
      {FactKind::bridge_acs, "ACS"},
      {FactKind::iommu, "IOMMU"},
      {FactKind::nccl_version, "NCCL version"},
  }};
};

// One fact as one source gave it. `subject` is made by the functions below, so that a rule finds the facts of
// a GPU or a pair by the same key the builder filed them under.
struct Observation {
  std::string subject;  // "GPU 0", "GPU pair 0-1", "bridge 0000:03:08.0", "host"
  FactKind kind = FactKind::gpu_name;
  std::string value;  // normalized: a path class id, a count, "OK", a version
  FactSource source;

  bool operator==(const Observation&) const = default;
};

std::string gpu_subject(int index);
std::string pair_subject(int a, int b);  // a and b in either order
std::string bridge_subject(const std::string& bus_id);
inline constexpr const char* kHostSubject = "host";

// Sources that gave one fact different values.
struct Disagreement {
  std::string subject;
  FactKind kind = FactKind::gpu_name;
  std::vector<Observation> said;  // one per distinct value, in the order the sources were read

  bool operator==(const Disagreement&) const = default;
};

// A rank's GPU as an NCCL Init line names it.
struct NcclRankGpu {
  int rank = -1;
  std::string bus_id;  // "0000:4f:00.0"; empty where the line has no busId (NCCL before 2.7)
  int cuda_dev = -1, nvml_dev = -1;
  std::string host;  // the line's host prefix, where it has one
  FactSource source;

  bool operator==(const NcclRankGpu&) const = default;
};

// One communicator of the log: its ranks' GPUs from the Init lines of every process in it.
struct NcclCommunicator {
  // "commId 0x49bbd7790311d5eb" (NCCL 2.19 and later name it), else "communicator N of nranks M" (the
  // ranks' Init lines grouped: a rank seen again opens the next communicator of that size).
  std::string key;
  int nranks = 0;
  std::vector<NcclRankGpu> ranks;
  bool complete = false;  // an Init COMPLETE line was seen (not only Init START)
  int rings = 0;          // ring order lines ("Channel 00/02 :    0   1   2   3", "Ring 00 : 0 1")
  int trees = 0;          // "Trees [0] 1/-1/-1->0->-1" lines

  bool operator==(const NcclCommunicator&) const = default;
};

// A channel line: what NCCL used from one rank to another within a communicator.
struct NcclRankConnection {
  // The communicator's key; "no Init COMPLETE (host:pid:tid)" where the thread that printed the line never
  // finished its init (a job that hung in init), "(unprefixed lines)" for lines without a prefix.
  std::string communicator;
  int from_rank = -1, to_rank = -1;
  std::string from_device, to_device;  // the brackets: a cudaDev ("1") or a busId ("c2000"); empty in 2.4's
  NcclPairTransport transport;
  int channels = 0;            // channel lines naming this connection
  int gpu_a = -1, gpu_b = -1;  // the node's GPUs at the two ends, where matched
  std::string matched_by;  // how: "Init line", "busId in the channel line", "cudaDev as nvidia-smi's index";
                           // empty where not matched
  FactSource source;       // the first line naming it

  bool operator==(const NcclRankConnection&) const = default;
};

struct NcclSetting {
  std::string name, value;  // "NCCL_P2P_LEVEL", "LOC"
  FactSource source;

  bool operator==(const NcclSetting&) const = default;
};

// "ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856": NCCL's kernels need more shared memory than
// the GPU gives them (NCCL 2.25 on GeForce Blackwell).
struct NcclSharedMemory {
  long needed = 0, available = 0;
  int cuda_arch = 0;  // where the line names it (a WARN of later versions: "cudaArch 1200")
  FactSource source;

  bool operator==(const NcclSharedMemory&) const = default;
};

struct NcclVersionSeen {
  std::string version;  // "2.25.1+cuda12.8"
  FactSource source;

  bool operator==(const NcclVersionSeen&) const = default;
};

struct NcclSeen {
  std::vector<NcclVersionSeen> versions;  // distinct, in the order seen
  std::vector<NcclSetting> settings;      // "... set by environment to ...", distinct
  std::vector<NcclCommunicator> communicators;
  std::vector<NcclRankConnection> connections;
  std::vector<NcclSharedMemory> shared_memory;
  std::vector<FactSource> warnings;  // NCCL WARN lines, the first few

  bool operator==(const NcclSeen&) const = default;
};

// A pasted bandwidth test's figures for one direction between two GPUs of the node, GB/s.
struct PairBandwidth {
  int src = -1, dst = -1;
  double p2p_enabled_gbps = -1, p2p_disabled_gbps = -1;  // unidirectional; -1 not measured
  double bidirectional_enabled_gbps = -1, bidirectional_disabled_gbps = -1;
  std::string tool;  // "p2pBandwidthLatencyTest", "nvbandwidth device_to_device_memcpy_write_ce"
  FactSource enabled_source, disabled_source;  // the matrix rows read

  bool operator==(const PairBandwidth&) const = default;
};

// One result of `dcgmi diag -j` for a PCIe or NVLink test.
struct DcgmResult {
  std::string test;    // "PCIe", "pcie", "nvbandwidth", "NVLink"
  int gpu = -1;        // DCGM's GPU id (nvidia-smi's index); -1 for all
  std::string status;  // "Pass", "Fail", "Warn", "Skip" as DCGM spells them
  std::string detail;  // its warnings and info, joined
  FactSource source;

  bool operator==(const DcgmResult&) const = default;
};

struct NodeModel {
  NodeFacts facts;
  std::string host_from;   // where the host name came from: "the NCCL log's line prefixes", "--host", ...
  bool this_host = false;  // facts of this machine's sysfs (and NVML) are in the model
  std::vector<Observation> observations;
  std::vector<Disagreement> disagreements;
  NcclSeen nccl;
  std::vector<PairBandwidth> bandwidth;
  std::vector<DcgmResult> dcgm;

  bool operator==(const NodeModel&) const = default;
};

// The observations of `subject` and `kind`, in the order they were made.
std::vector<const Observation*> observations_of(const NodeModel& model, const std::string& subject,
                                                FactKind kind);
// Their sources.
std::vector<FactSource> sources_of(const NodeModel& model, const std::string& subject, FactKind kind);

void to_json(nlohmann::json& j, const Observation& o);
void from_json(const nlohmann::json& j, Observation& o);
void to_json(nlohmann::json& j, const Disagreement& d);
void from_json(const nlohmann::json& j, Disagreement& d);
void to_json(nlohmann::json& j, const NcclSeen& n);
void from_json(const nlohmann::json& j, NcclSeen& n);
void to_json(nlohmann::json& j, const PairBandwidth& b);
void from_json(const nlohmann::json& j, PairBandwidth& b);
void to_json(nlohmann::json& j, const DcgmResult& r);
void from_json(const nlohmann::json& j, DcgmResult& r);

}  // namespace k25
