// k25comm doctor without the hardware: config space parsing, the sysfs readers on fixture trees written from
// published dumps (make_sysfs.py), NCCL's dump and log joined to them, every verdict from its fixture,
// compare, the capture's backends, and docs/doctor.md's verdict table.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/capture_document.hpp"
#include "analysis/run_report.hpp"
#include "common/error.hpp"
#include "doctor/doctor_run.hpp"
#include "doctor/model/doctor_document.hpp"
#include "doctor/readers/capture_backends.hpp"
#include "doctor/readers/node_builder.hpp"
#include "doctor/verdicts/node_compare.hpp"
#include "doctor/verdicts/node_verdicts.hpp"
#include "doctor/verdicts/verdict_kinds.hpp"
#include "report/markdown_report.hpp"
#include "topology/node_probe.hpp"
#include "topology/pci_config.hpp"

namespace {

const std::string kRoots = K25_DOCTOR_ROOTS;  // make_sysfs.py's output
const std::string kData = std::string(K25_SOURCE_DIR) + "/tests/doctor/data";

std::string text_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

k25::NodeFacts fixture(const std::string& node) {
  k25::NodeProbeOptions options;
  options.root = kRoots + "/" + node;
  options.host = node;
  options.use_nvml = false;
  return k25::read_node_facts(options);
}

// `facts` (this host's, from a fixture) with NCCL's files read through the families' table; the node is
// `host`, the one the files name (as doctor --root takes it).
k25::NodeModel with_files(k25::NodeFacts facts, const std::vector<std::string>& files,
                          const std::string& host = "") {
  k25::NodeBuildInputs inputs;
  inputs.host = host.empty() ? facts.host : host;
  inputs.host_from = "the test";
  inputs.this_host = std::move(facts);
  for (const std::string& file : files)
    k25::read_pasted(k25::pasted_text(file, text_of(file)), inputs.pasted);
  return k25::build_node_model(std::move(inputs));
}

std::vector<std::string> ids(const std::vector<k25::NodeVerdict>& verdicts) {
  std::vector<std::string> list;
  for (const k25::NodeVerdict& verdict : verdicts)
    list.push_back(std::string(to_string(verdict.id)) + ":" + to_string(verdict.severity));
  return list;
}

const k25::NodeVerdict& only(const std::vector<k25::NodeVerdict>& verdicts, k25::VerdictId id) {
  const auto found =
      std::find_if(verdicts.begin(), verdicts.end(), [&](const auto& v) { return v.id == id; });
  REQUIRE(found != verdicts.end());
  return *found;
}

std::string transports(const k25::NodePair& pair) {
  std::vector<std::string> names;
  for (const k25::NcclPairTransport& transport : pair.nccl_transports) names.push_back(transport.name);
  std::string joined;
  for (const std::string& name : names) joined += (joined.empty() ? "" : ", ") + name;
  return joined;
}

// A GPU with its link: current, the GPU's maximum and its port's, each {generation, width}.
k25::NodeGpu gpu_link(const std::string& bus_id, const std::string& port, std::pair<int, int> current,
                      std::pair<int, int> gpu_max, std::pair<int, int> port_max) {
  k25::NodeGpu gpu;
  gpu.bus_id = bus_id;
  gpu.port = port;
  std::tie(gpu.link_gen, gpu.link_width) = current;
  std::tie(gpu.gpu_gen_max, gpu.gpu_width_max) = gpu_max;
  std::tie(gpu.port_gen_max, gpu.port_width_max) = port_max;
  return gpu;
}

std::map<std::string, int> path_counts(const k25::NodeFacts& facts) {
  std::map<std::string, int> counts;
  for (const k25::NodePair& pair : facts.pairs) ++counts[k25::path_class_id(pair.path)];
  return counts;
}

// Config space of a switch port as Linux's sysfs gives it to root: PCI Express capability at 0x40, AER at
// 0x100, ACS at `acs_at` with control `control`.
std::vector<std::uint8_t> switch_port_config(std::uint16_t acs_at, std::uint16_t control, int port_type) {
  std::vector<std::uint8_t> bytes(4096, 0);
  const auto put16 = [&](std::size_t at, std::uint16_t v) {
    bytes[at] = static_cast<std::uint8_t>(v & 0xff);
    bytes[at + 1] = static_cast<std::uint8_t>(v >> 8);
  };
  const auto put32 = [&](std::size_t at, std::uint32_t v) {
    put16(at, static_cast<std::uint16_t>(v & 0xffff));
    put16(at + 2, static_cast<std::uint16_t>(v >> 16));
  };
  put16(0x00, 0x10b5);
  put16(0x02, 0x8747);
  bytes[0x06] = 0x10;
  bytes[0x34] = 0x40;
  bytes[0x40] = 0x10;
  put16(0x42, static_cast<std::uint16_t>(0x0002 | (port_type << 4)));
  put32(0x100, 0x0001u | (1u << 16) | (static_cast<std::uint32_t>(acs_at) << 20));
  put32(acs_at, 0x000du | (1u << 16));
  put16(acs_at + 6u, control);
  return bytes;
}

}  // namespace

TEST_CASE("ACS control and port type come from a switch port's config space", "[doctor][config]") {
  const k25::ConfigSpace space = k25::parse_config_space(switch_port_config(0xf24, 0x001d, 6));
  CHECK(space.reach == k25::ConfigReach::full);
  CHECK(space.port.words() == "switch downstream port");
  REQUIRE(space.acs.state == k25::AcsState::Read::read);
  CHECK(space.acs.offset == 0xf24);
  CHECK(space.acs.control == 0x001d);
  CHECK(space.acs.redirects_peer_traffic());
  CHECK(space.acs.lspci_words() ==
        "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-");

  // SrcValid alone redirects nothing; EgressCtrl alone does.
  CHECK_FALSE(k25::parse_config_space(switch_port_config(0x148, 0x0001, 6)).acs.redirects_peer_traffic());
  CHECK(k25::parse_config_space(switch_port_config(0x148, 0x0020, 6)).acs.redirects_peer_traffic());
}

TEST_CASE("Config space an unprivileged user reads says ACS needs root", "[doctor][config]") {
  std::vector<std::uint8_t> bytes = switch_port_config(0xf24, 0x001d, 6);
  bytes.resize(64);
  const k25::ConfigSpace space = k25::parse_config_space(bytes);
  CHECK(space.reach == k25::ConfigReach::header_only);
  CHECK(space.acs.state == k25::AcsState::Read::needs_root);
  CHECK(space.port.code == -1);  // the PCI Express capability at 0x40 is beyond the 64 bytes
  CHECK(k25::parse_config_space({}).reach == k25::ConfigReach::missing);
}

TEST_CASE("A looping or absent extended capability chain ends the walk", "[doctor][config]") {
  std::vector<std::uint8_t> looping = switch_port_config(0x100, 0x001d, 6);
  // 0x100's header points at itself: the walk must stop, not spin.
  looping[0x100] = 0x01;
  looping[0x101] = 0x00;
  looping[0x102] = 0x01;
  looping[0x103] = 0x10;
  CHECK(k25::parse_config_space(looping).acs.state == k25::AcsState::Read::absent);
  std::vector<std::uint8_t> conventional = switch_port_config(0xf24, 0x001d, 6);
  conventional.resize(256);  // a PCI (not Express) function: no extended space
  CHECK(k25::parse_config_space(conventional).acs.state == k25::AcsState::Read::absent);
}

TEST_CASE("ACS redirect on a bridge of the path: the PLX node", "[doctor][fixture]") {
  const k25::NodeFacts facts = fixture("plx-8gpu-acs");
  REQUIRE(facts.gpus.size() == 8);
  CHECK(facts.gpus[0].bus_id == "0000:06:00.0");
  CHECK(facts.gpus[4].numa_node == 1);
  CHECK(facts.gpus[4].local_cpus == "14-27");
  CHECK(path_counts(facts) ==
        std::map<std::string, int>{{"same_switch", 4}, {"several_switches", 8}, {"across_sockets", 16}});
  const k25::NodePair* pair = k25::find_pair(facts, 0, 1);
  REQUIRE(pair != nullptr);
  CHECK(pair->bridges == std::vector<std::string>{"0000:05:08.0", "0000:04:00.0", "0000:05:10.0"});
  CHECK(k25::find_pair(facts, 0, 2)->bridges ==
        std::vector<std::string>{"0000:05:08.0", "0000:04:00.0", "0000:03:08.0", "0000:02:00.0",
                                 "0000:03:10.0", "0000:08:00.0", "0000:09:08.0"});
  CHECK(facts.iommu.mode == "off");

  const std::vector<k25::NodeVerdict> verdicts = k25::node_verdicts(facts);
  CHECK(ids(verdicts) == std::vector<std::string>{"acs_redirect:cost", "cross_socket:cost",
                                                  "engine_custom_allreduce_off:check"});
  const k25::NodeVerdict& acs = only(verdicts, k25::VerdictId::acs_redirect);
  CHECK(acs.finding.find(
            "ACS redirect bits on 6 bridges (0000:03:08.0 (SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ "
            "UpstreamFwd+ EgressCtrl- DirectTrans-, switch downstream port);") == 0);
  CHECK(acs.finding.find("on the path of 6 GPU pairs (0-1, 0-2, 0-3, 1-2, 1-3, 2-3)") != std::string::npos);
  CHECK(acs.fix.find("setpci -s 0000:03:08.0 ECAP_ACS+0x6.w=0000") != std::string::npos);
  CHECK(acs.source == "NCCL troubleshooting guide, PCI Access Control Services (ACS)");
  CHECK(only(verdicts, k25::VerdictId::cross_socket).finding ==
        "16 of 28 GPU pairs cross CPU sockets (GPUs 0,1,2,3 on NUMA node 0; GPUs 4,5,6,7 on NUMA node 1)");
}

TEST_CASE("NCCL's topology dump of the PCIe node gives sysfs's path classes", "[doctor][nccl]") {
  const k25::NodeModel model = with_files(fixture("plx-8gpu-acs"), {kData + "/plx-8gpu-acs/nccl-topo.xml"});
  for (const k25::NodePair& pair : model.facts.pairs) {
    INFO("pair " << pair.a << "-" << pair.b);
    CHECK(pair.nccl_path == pair.path);
  }
  CHECK(model.facts.nccl.notes.empty());
  CHECK(model.disagreements.empty());  // sysfs and the dump agree on every path
}

TEST_CASE("A link trained at Gen4 x8 on a Gen5 x16 slot, the IOMMU translating", "[doctor][fixture]") {
  const k25::NodeFacts facts = fixture("workstation-2gpu-iommu");
  REQUIRE(facts.gpus.size() == 2);
  CHECK(facts.pairs.front().path == k25::PathClass::across_host_bridges);
  CHECK(facts.iommu.mode == "translated");
  CHECK(facts.iommu.evidence ==
        "the GPUs' IOMMU groups are of type DMA-FQ; no IOMMU word on the kernel command line");
  CHECK(facts.gpus[1].iommu_type == "DMA-FQ");
  const std::vector<k25::NodeVerdict> verdicts = k25::node_verdicts(facts);
  CHECK(ids(verdicts) == std::vector<std::string>{"acs_redirect:cost", "iommu_translated:cost",
                                                  "link_below_max:cost", "across_host_bridges:check"});
  const k25::NodeVerdict& link = only(verdicts, k25::VerdictId::link_below_max);
  CHECK(link.finding ==
        "GPU 1 (0000:41:00.0)'s link trained at Gen4 x8, below the Gen5 x16 both ends support");
  CHECK(link.cost == "15.8 GB/s per direction instead of 63.0 GB/s per direction");
  // The root ports' ACS (what Linux sets with the IOMMU on) redirects the one pair, which crosses them.
  CHECK(only(verdicts, k25::VerdictId::acs_redirect).finding.find("on the path of 1 GPU pair (0-1)") !=
        std::string::npos);
  CHECK(
      only(verdicts, k25::VerdictId::acs_redirect).cost ==
      "peer requests are redirected to the root complex for validation: slower, or blocked where the root complex does not forward them");
}

TEST_CASE("An idle GPU's lower speed at full width is a check, not a cost", "[doctor][verdicts]") {
  k25::NodeFacts facts;
  facts.gpus = {gpu_link("0000:01:00.0", "", {1, 16}, {5, 16}, {5, 16})};
  const std::vector<k25::NodeVerdict> verdicts = k25::node_verdicts(facts);
  REQUIRE(ids(verdicts) == std::vector<std::string>{"link_below_max:check"});
  CHECK(verdicts[0].cost.find("only the speed is lower") != std::string::npos);
}

TEST_CASE("A GPU in a slot slower than the GPU", "[doctor][verdicts]") {
  k25::NodeFacts facts;
  facts.gpus = {gpu_link("0000:81:00.0", "0000:80:01.1", {4, 16}, {5, 16}, {4, 16})};
  const std::vector<k25::NodeVerdict> verdicts = k25::node_verdicts(facts);
  REQUIRE(ids(verdicts) == std::vector<std::string>{"slot_below_gpu:cost"});
  CHECK(verdicts[0].finding ==
        "GPU 0 (0000:81:00.0) can train to Gen5 x16, its port 0000:80:01.1 to Gen4 x16 only");
  CHECK(verdicts[0].cost == "31.5 GB/s per direction at best instead of 63.0 GB/s per direction");
}

TEST_CASE("NCCL through SHM where P2P was possible: the RTX 4090 node", "[doctor][fixture][nccl]") {
  const k25::NodeModel model =
      with_files(fixture("rtx4090-8gpu-shm"), {kData + "/rtx4090-8gpu-shm/nccl-info.log"}, "node031");
  const k25::NodeFacts& facts = model.facts;
  CHECK(facts.nccl_version == "2.21.5+cuda12.4");
  CHECK(facts.nccl.environment ==
        std::vector<std::string>{"NCCL_IGNORE_DISABLED_P2P set by environment to 1"});
  CHECK(transports(*k25::find_pair(facts, 0, 1)) == "SHM/direct/direct");
  CHECK(transports(*k25::find_pair(facts, 0, 7)) == "SHM/direct/direct");  // ring 7 -> 0
  CHECK(transports(*k25::find_pair(facts, 0, 2)).empty());
  const std::vector<k25::NodeVerdict> verdicts = k25::node_verdicts(model);
  CHECK(ids(verdicts) == std::vector<std::string>{"nccl_not_p2p:cost", "cross_socket:cost",
                                                  "engine_custom_allreduce_off:check", "acs_unknown:unseen"});
  const k25::NodeVerdict& not_p2p = only(verdicts, k25::VerdictId::nccl_not_p2p);
  CHECK(not_p2p.finding ==
        "NCCL connected 6 GPU pairs through SHM where the path allows P2P (0-1, 1-2, 2-3, 4-5, 5-6, 6-7)");
  // Its evidence: the channel lines of the log, with their file and line, and sysfs's paths.
  REQUIRE_FALSE(not_p2p.evidence.empty());
  CHECK(not_p2p.evidence.front().file == kData + "/rtx4090-8gpu-shm/nccl-info.log");
  CHECK(not_p2p.evidence.front().text.find("via SHM/direct/direct") != std::string::npos);
  CHECK(not_p2p.evidence.front().line > 0);
  // NCCL_IGNORE_DISABLED_P2P only silences a message: the fix does not tell to remove it.
  CHECK(not_p2p.fix == k25::verdict_kind(k25::VerdictId::nccl_not_p2p).fix);
  CHECK(only(verdicts, k25::VerdictId::acs_unknown)
            .finding.find("ACS of 12 bridges on the GPUs' paths needs root to read") == 0);
  CHECK(
      k25::node_headline(model, verdicts) ==
      "node031: 8 GPUs, PCIe (12 GPU pairs same PCIe switch, 16 GPU pairs across CPU sockets); 2 findings that cost: NCCL went through host memory or the network where P2P was possible, GPU pairs cross CPU sockets [NCCL through shared memory where P2P was possible]");
  // Without root the bridges' types come from their place on the path.
  const auto usp = std::find_if(facts.bridges.begin(), facts.bridges.end(),
                                [](const k25::NodeBridge& b) { return b.bus_id == "0000:4b:00.0"; });
  REQUIRE(usp != facts.bridges.end());
  CHECK(usp->port_type == "switch upstream port");
  CHECK(usp->port_type_from == "position");
  CHECK(usp->acs == "needs root");
}

TEST_CASE("The NVLink node: every pair NVLink from NCCL's dump, NCCL through P2P, no finding that costs",
          "[doctor][fixture][nccl]") {
  const k25::NodeModel model = with_files(
      fixture("h100-8gpu-nvlink"),
      {kData + "/h100-8gpu-nvlink/nccl-topo.xml", kData + "/h100-8gpu-nvlink/nccl-info.log"}, "hgx-h100-07");
  CHECK(path_counts(model.facts) == std::map<std::string, int>{{"nvlink", 28}});
  CHECK(transports(*k25::find_pair(model.facts, 3, 4)) == "P2P/CUMEM/read");
  CHECK(model.facts.iommu.mode == "off");
  CHECK(model.facts.iommu.cmdline_words == "iommu=pt");
  const std::vector<k25::NodeVerdict> verdicts = k25::node_verdicts(model);
  CHECK(ids(verdicts) == std::vector<std::string>{"nvlink_pairs:info"});
  CHECK(k25::node_headline(model, verdicts) ==
        "hgx-h100-07: 8 GPUs, NVLink (28 GPU pairs NVLink); no finding that costs");
}

TEST_CASE("NCCL's files alone make the GPUs where no sysfs shows any", "[doctor][nccl]") {
  k25::NodeBuildInputs inputs;
  inputs.host = "hgx-h100-07";
  const std::string dump = kData + "/h100-8gpu-nvlink/nccl-topo.xml";
  k25::read_pasted(k25::pasted_text(dump, text_of(dump)), inputs.pasted);
  const k25::NodeModel model = k25::build_node_model(std::move(inputs));
  const k25::NodeFacts& facts = model.facts;
  CHECK_FALSE(model.this_host);
  CHECK(facts.iommu.mode == "unknown");
  REQUIRE(facts.gpus.size() == 8);
  CHECK(facts.gpus[7].bus_id == "0000:d9:00.0");
  CHECK(facts.gpus[7].numa_node == 1);
  CHECK(facts.gpus[7].nvlinks == 18);
  CHECK(facts.gpus[7].sm == 90);
  CHECK(path_counts(facts) == std::map<std::string, int>{{"nvlink", 28}});
  // Not this host's: sysfs, NVML and the IOMMU are said as not read, never taken from this machine.
  REQUIRE_FALSE(facts.unseen.empty());
  CHECK(facts.unseen.front().find("this host's sysfs and NVML: not read, the inputs are of hgx-h100-07") ==
        0);
}

TEST_CASE("A sysfs tree without GPUs says no_gpu", "[doctor][fixture]") {
  k25::NodeProbeOptions options;
  options.root = kRoots + "/no-such-root";
  options.use_nvml = false;
  const k25::NodeFacts facts = k25::read_node_facts(options);
  CHECK_FALSE(facts.sysfs_found);
  CHECK(facts.iommu.mode == "unknown");
  CHECK(facts.iommu.evidence == "no sysfs under " + options.root.string() + "; no kernel command line (" +
                                    options.root.string() + "/proc/cmdline)");
  CHECK(ids(k25::node_verdicts(facts)) == std::vector<std::string>{"no_gpu:unseen"});
}

TEST_CASE("Compare of two fixtures lists exactly their differences", "[doctor][compare]") {
  k25::DoctorDocument before, after;
  before.model.facts = fixture("plx-8gpu-acs");
  after.model.facts = fixture("plx-8gpu-acs-off");
  before.model.this_host = after.model.this_host = true;
  k25::derive_verdicts(before);
  k25::derive_verdicts(after);
  std::vector<std::string> lines;
  for (const k25::NodeDifference& d : k25::compare_nodes(before, after)) lines.push_back(d.line());
  const std::string on =
      "redirects (SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-)";
  const std::string off =
      "no redirect (SrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-)";
  std::vector<std::string> expected;
  for (const char* bridge :
       {"0000:03:08.0", "0000:03:10.0", "0000:05:08.0", "0000:05:10.0", "0000:09:08.0", "0000:09:10.0"})
    expected.push_back(std::string("ACS: bridge ") + bridge + ": " + on + " | " + off);
  CHECK(lines == expected);
  CHECK(ids(after.verdicts) ==
        std::vector<std::string>{"cross_socket:cost", "engine_custom_allreduce_off:check"});
  CHECK(k25::compare_nodes(before, before).empty());
}

namespace {

// A capture.json as the current writer writes it (to_json of capture's typed document), with these backends.
nlohmann::json capture_json(std::vector<k25::BackendRow> rows, std::vector<k25::BackendRuleNote> rules = {}) {
  k25::CaptureResult capture;
  capture.trace.present = true;
  capture.trace.backends = std::move(rows);
  capture.trace.backend_rules = std::move(rules);
  return capture;
}

}  // namespace

TEST_CASE("Compare lists the all-reduce backend that ran, from captures", "[doctor][compare][backends]") {
  const auto read = [](const nlohmann::json& capture, const std::string& name) {
    return k25::doctor_input_from_json(capture, name);
  };
  const std::string custom_ar = "vllm custom all-reduce 1-stage";
  const k25::DoctorDocument custom = read(
      capture_json({{"AllReduce", 14336, custom_ar, 122, 11.2},
                    {"AllReduce", std::nullopt, "nccl AllReduce", 2, 48.0},
                    {"AllGather", 65536, "nccl AllGather", 1, 40.5}},
                   {{custom_ar, 8,
                     "vLLM turns its custom all-reduce off on more than two PCIe-only GPUs: on such a node "
                     "these AllReduces go through NCCL",
                     "vllm/distributed/device_communicators/custom_all_reduce.py"},
                    {"nccl AllReduce", 8, "", ""}}),
      "custom/capture.json");
  const k25::DoctorDocument nccl =
      read(capture_json({{"AllReduce", 14336, "nccl AllReduce RING_LL", 122, 24.9},
                         {"AllReduce", std::nullopt, "nccl AllReduce", 2, 47.0},
                         {"AllGather", 65536, "nccl AllGather", 1, 41.0}}),
           "nccl/capture.json");
  CHECK(custom.source == "capture.json");
  CHECK(custom.backends.file == "custom/capture.json");
  CHECK(custom.backends.status == "read");
  REQUIRE(custom.backends.runs.size() == 3);
  CHECK(custom.backends.runs[0].count == 122);
  CHECK(*custom.backends.runs[0].bytes == 14336);
  CHECK_FALSE(custom.backends.runs[1].bytes.has_value());
  CHECK(*custom.backends.runs[1].op_us == 48.0);  // the kernel's time, p50
  CHECK(nccl.backends.runs.size() == 3);
  std::vector<std::string> lines;
  for (const k25::NodeDifference& d : k25::compare_nodes(custom, nccl)) lines.push_back(d.line());
  CHECK(lines ==
        std::vector<std::string>{
            "backend that ran: AllReduce 14336 B: vllm custom all-reduce 1-stage | nccl AllReduce RING_LL"});
  // The rule an engine's documentation gives is a verdict of its own; a rule without its words is left out.
  CHECK(ids(custom.verdicts) == std::vector<std::string>{"backend_rule:check", "no_gpu:unseen"});
  CHECK(
      only(custom.verdicts, k25::VerdictId::backend_rule).finding ==
      "vllm custom all-reduce 1-stage ran on 8 ranks: vLLM turns its custom all-reduce off on more than two PCIe-only GPUs: on such a node these AllReduces go through NCCL (source: vllm/distributed/device_communicators/custom_all_reduce.py)");
  CHECK(nccl.backends.notes.empty());
  CHECK(ids(nccl.verdicts) == std::vector<std::string>{"no_gpu:unseen"});
  // doctor.json keeps the notes: read back, the same verdicts.
  k25::DoctorDocument written = custom;
  const k25::DoctorDocument back = k25::doctor_input_from_json(nlohmann::json(written), "doctor.json");
  CHECK(back.backends.notes == custom.backends.notes);
  CHECK(ids(back.verdicts) == ids(custom.verdicts));

  // A trace that named no backend, and a capture of Inspector logs alone: nothing to compare, the status says
  // why.
  const k25::DoctorDocument none = read(capture_json({}), "none.json");
  CHECK(none.backends.runs.empty());
  CHECK(none.backends.status == "the capture's trace named no collective's backend: nothing to compare");
  CHECK(k25::compare_nodes(custom, none).empty());
  const k25::DoctorDocument logs = read(k25::CaptureResult{}, "logs.json");
  CHECK(logs.backends.status ==
        "the capture read no profiler trace (NCCL Inspector logs alone): no backend to compare");
  // A capture.json of another shape is refused through capture's typed reader, naming the member.
  nlohmann::json renamed = capture_json({{"AllReduce", 14336, custom_ar, 122, 11.2}});
  renamed["trace"]["backends"][0]["backend_name"] = renamed["trace"]["backends"][0]["backend"];
  renamed["trace"]["backends"][0].erase("backend");
  CHECK_THROWS_WITH(read(renamed, "renamed.json"),
                    Catch::Matchers::Contains("renamed.json: capture.json trace.backends[0]: no member "
                                              "'backend'"));
}

TEST_CASE("doctor.json reads back to the same facts, and a report gives its node facts",
          "[doctor][compare]") {
  k25::DoctorDocument document;
  document.model.facts = fixture("workstation-2gpu-iommu");
  document.model.this_host = true;
  k25::derive_verdicts(document);
  const k25::DoctorDocument back = k25::doctor_input_from_json(nlohmann::json(document), "doctor.json");
  CHECK(nlohmann::json(back.model.facts) == nlohmann::json(document.model.facts));
  CHECK(ids(back.verdicts) == ids(document.verdicts));
  CHECK(k25::compare_nodes(document, back).empty());

  // report.json as the report's writer writes it, read through its typed reader.
  k25::RunReport report;
  report.run.transport = "nccl";
  report.topology.kind = "pcie";
  report.topology.nodes = {document.model.facts};
  CHECK(k25::doctor_input_from_json(nlohmann::json(report), "report.json").model.facts.gpus.size() == 2);
  // A report without node facts (an older k25comm): node facts from its per-rank GPU records, paths unknown.
  k25::RunReport older;
  older.run.transport = "nccl";
  older.topology.kind = "pcie";
  older.topology.nccl_version = "2.21.5";
  k25::GpuInfo first, second;
  first.rank = 0, first.host = "h", first.bus_id = "0000:01:00.0", first.pcie_gen = 4, first.pcie_width = 8;
  second.rank = 1, second.host = "h", second.bus_id = "0000:41:00.0", second.pcie_gen = 5,
  second.pcie_width = 16;
  older.topology.gpus = {first, second};
  const k25::DoctorDocument from_older = k25::doctor_input_from_json(nlohmann::json(older), "old.json");
  CHECK(from_older.model.facts.gpus.size() == 2);
  CHECK(from_older.model.facts.nccl_version == "2.21.5");
  CHECK(k25::compare_nodes(from_older, back).front().line() == "IOMMU: unknown | translated");
  CHECK_THROWS_WITH(k25::doctor_input_from_json(nlohmann::json::array(), "x.json"),
                    "x.json: not a JSON object");
  CHECK_THROWS_WITH(k25::doctor_input_from_json({{"node", 7}, {"verdicts", 1}}, "y.json"),
                    "y.json: a node's facts must be a JSON object");
  CHECK_THROWS_WITH(
      k25::doctor_input_from_json(
          {{"schema_version", 9}, {"node", nlohmann::json::object()}, {"verdicts", 1}}, "z.json"),
      "z.json: schema_version 9 is newer than this k25comm reads (2)");
}

TEST_CASE("A rank on CPUs of another NUMA node than its GPU", "[doctor][verdicts]") {
  k25::NodeFacts facts = fixture("plx-8gpu-acs");
  facts.ranks = {{0, "0000:06:00.0", "0-13"}, {4, "0000:86:00.0", "0-3"}, {5, "0000:87:00.0", "0-27"}};
  const std::vector<k25::NodeVerdict> verdicts = k25::node_verdicts(facts);
  CHECK(only(verdicts, k25::VerdictId::rank_far_from_gpu).finding ==
        "rank 4 on CPUs 0-3, its GPU 4 (0000:86:00.0) near CPUs 14-27 (NUMA node 1)");
  CHECK(k25::parse_cpu_list("0-2,7,9-10,x,3-") == std::vector<int>{0, 1, 2, 7, 9, 10});
}

TEST_CASE("docs/doctor.md holds the verdict table made from the code's", "[doctor][docs]") {
  const std::string doc = text_of(std::string(K25_SOURCE_DIR) + "/docs/doctor.md");
  const std::string begin = "<!-- verdicts: generated from src/doctor/verdicts/verdict_kinds.cpp -->\n";
  const std::string end = "<!-- end of generated verdicts -->";
  const std::size_t from = doc.find(begin);
  REQUIRE(from != std::string::npos);
  const std::size_t to = doc.find(end, from);
  REQUIRE(to != std::string::npos);
  CHECK(doc.substr(from + begin.size(), to - from - begin.size()) == k25::verdict_kinds_markdown() + "\n");
}

TEST_CASE("A measuring run's report carries each host's node facts and report.md diagnoses them",
          "[doctor][report]") {
  k25::RunReport report;
  report.topology.kind = "pcie";
  report.topology.nodes = {fixture("workstation-2gpu-iommu")};
  report.topology.nodes[0].ranks = {{0, "0000:01:00.0", "0-63"}, {1, "0000:41:00.0", "0-63"}};
  const nlohmann::json written = report.topology;
  REQUIRE(written.contains("nodes"));
  const k25::TopologyInfo back = written.get<k25::TopologyInfo>();
  CHECK(nlohmann::json(back.nodes) == nlohmann::json(report.topology.nodes));

  const std::string md = k25::render_markdown(report);
  CHECK(
      md.find(
          "## Node diagnosis\n\n### workstation-2gpu-iommu\n\n**workstation-2gpu-iommu: 2 GPUs, PCIe (1 GPU pair across host bridges of one NUMA node); 3 findings that cost") !=
      std::string::npos);
  CHECK(md.find("#### Verdicts") != std::string::npos);
  CHECK(md.find("- **cost** `link_below_max`: GPU 1 (0000:41:00.0)'s link trained at Gen4 x8") !=
        std::string::npos);
  CHECK(
      md.find("Ranks and their CPUs: rank 0 on 0000:01:00.0: CPUs 0-63; rank 1 on 0000:41:00.0: CPUs 0-63") !=
      std::string::npos);
  // The sections without facts in a measuring run say why.
  CHECK(md.find("#### NCCL's view\n\nNot given: NCCL's transport per pair comes from `k25comm doctor") !=
        std::string::npos);
  CHECK(md.find("#### Measured P2P\n\nMeasured P2P: not part of a measuring run") != std::string::npos);

  // Without GPUs (the host transport) the topology has no nodes, and report.md no diagnosis.
  k25::RunReport host;
  CHECK_FALSE(nlohmann::json(host.topology).contains("nodes"));
  CHECK(k25::render_markdown(host).find("Node diagnosis") == std::string::npos);
}

TEST_CASE("A log's bytes that are not UTF-8 reach doctor.json replaced, not thrown", "[doctor][regression]") {
  // fuzz_doctor_inputs' first finding: a host name with byte 0xb3 went into a note, and dumping doctor.json
  // threw.
  k25::NodeBuildInputs inputs;
  k25::read_pasted(
      k25::pasted_text(
          "bad.log",
          "nod\xb3:1:2 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 4e000 commId 0x9 - Init COMPLETE\n"),
      inputs.pasted);
  k25::DoctorDocument document;
  document.model = k25::build_node_model(std::move(inputs));
  REQUIRE(document.model.nccl.communicators.size() == 1);
  k25::derive_verdicts(document);
  std::string text;
  REQUIRE_NOTHROW(text = k25::doctor_json_text(document));
  CHECK(text.find("nod\xef\xbf\xbd") != std::string::npos);  // U+FFFD in place of 0xb3
}
