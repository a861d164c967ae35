// doctor on what people paste, without sysfs: each family's reader on hand-written fixtures in its published
// formats (tests/doctor/pasted/README.md names each one's source) and every variant the issue lists, the
// families' table (several formats in one file, a file of none left out), the node model (communicators keyed
// by communicator and rank, sources that disagree, another host's files), and the verdicts a pasted text
// alone gives.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "doctor/doctor_run.hpp"
#include "doctor/readers/input_formats.hpp"
#include "doctor/readers/node_builder.hpp"
#include "doctor/render/doctor_markdown.hpp"
#include "doctor/verdicts/node_verdicts.hpp"

namespace {

const std::string kPasted = std::string(K25_SOURCE_DIR) + "/tests/doctor/pasted/";

std::string pasted_file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

k25::PastedText pasted(const std::string& name) {
  return k25::pasted_text(kPasted + name, pasted_file_text(kPasted + name));
}

// The node model of pasted files alone (no sysfs), the host the files name.
struct Pasted {
  k25::DoctorDocument document;
  const k25::NodeModel& model() const { return document.model; }
  const k25::NodeFacts& facts() const { return document.model.facts; }
};

Pasted from_files(const std::vector<std::string>& names) {
  k25::DoctorRunOptions options;
  options.this_host = "the-test-machine";
  options.measure = false;
  for (const std::string& name : names) options.from.push_back(kPasted + name);
  return {k25::run_doctor(options, k25::absent_nccl_backend())};
}

std::vector<std::string> verdict_ids(const std::vector<k25::NodeVerdict>& verdicts) {
  std::vector<std::string> list;
  for (const k25::NodeVerdict& verdict : verdicts)
    list.push_back(std::string(to_string(verdict.id)) + ":" + to_string(verdict.severity));
  return list;
}

const k25::NodeVerdict* find(const std::vector<k25::NodeVerdict>& verdicts, k25::VerdictId id) {
  const auto found =
      std::find_if(verdicts.begin(), verdicts.end(), [&](const auto& v) { return v.id == id; });
  return found == verdicts.end() ? nullptr : &*found;
}

std::string transports(const k25::NodeFacts& facts, int a, int b) {
  const k25::NodePair* pair = k25::find_pair(facts, a, b);
  REQUIRE(pair != nullptr);
  std::string joined;
  for (const k25::NcclPairTransport& transport : pair->nccl_transports)
    joined += (joined.empty() ? "" : ", ") + transport.name;
  return joined;
}

// Whether some evidence of `verdict` is line `line` of `file` (a fixture's name).
bool cites(const k25::NodeVerdict& verdict, const std::string& file, int line) {
  return std::any_of(verdict.evidence.begin(), verdict.evidence.end(),
                     [&](const k25::FactSource& s) { return s.file == kPasted + file && s.line == line; });
}

}  // namespace

TEST_CASE("topo -m as nvidia-smi prints it: tabs, a NIC column and row, the Legend",
          "[doctor][pasted][topo]") {
  const std::vector<k25::TopoMatrix> matrices = k25::read_topo_matrices(pasted("topo-m-tabs-rtx4090.txt"));
  REQUIRE(matrices.size() == 1);
  const k25::TopoMatrix& m = matrices[0];
  CHECK_FALSE(m.p2p);
  CHECK(m.gpus == 8);
  CHECK(m.nics == 1);
  CHECK(m.rows_read == 8);
  CHECK_FALSE(m.cut);
  CHECK(m.rows[4].cpu_affinity == "36-71,108-143");
  CHECK(m.rows[4].numa_affinity == "1");
  const Pasted p = from_files({"topo-m-tabs-rtx4090.txt"});
  CHECK(p.facts().gpus.size() == 8);
  CHECK(k25::find_pair(p.facts(), 0, 3)->path == k25::PathClass::same_switch);
  CHECK(k25::find_pair(p.facts(), 3, 4)->path == k25::PathClass::across_sockets);
  CHECK(p.facts().gpus[5].numa_node == 1);
  CHECK(p.facts().gpus[5].local_cpus == "36-71,108-143");
}

TEST_CASE("topo -m pasted with spaces, NIC columns and rows: NV18 pairs", "[doctor][pasted][topo]") {
  const std::vector<k25::TopoMatrix> matrices = k25::read_topo_matrices(pasted("topo-m-spaces-h100.txt"));
  REQUIRE(matrices.size() == 1);
  CHECK(matrices[0].gpus == 8);
  CHECK(matrices[0].nics == 4);
  const Pasted p = from_files({"topo-m-spaces-h100.txt"});
  const k25::NodePair* pair = k25::find_pair(p.facts(), 2, 6);
  REQUIRE(pair != nullptr);
  CHECK(pair->path == k25::PathClass::nvlink);
  CHECK(pair->nvlinks == 18);
}

TEST_CASE("topo -m and -p2p as Markdown tables", "[doctor][pasted][topo]") {
  const std::vector<k25::TopoMatrix> matrices = k25::read_topo_matrices(pasted("topo-m-markdown-rtx5090.md"));
  REQUIRE(matrices.size() == 2);
  CHECK(matrices[0].markdown);
  CHECK_FALSE(matrices[0].p2p);
  CHECK(matrices[1].p2p);
  const Pasted p = from_files({"topo-m-markdown-rtx5090.md"});
  const k25::NodePair* pair = k25::find_pair(p.facts(), 0, 1);
  REQUIRE(pair != nullptr);
  CHECK(pair->path == k25::PathClass::across_host_bridges);
  CHECK(pair->p2p_read == "GPU not supported");
  const std::vector<k25::NodeVerdict>& verdicts = p.document.verdicts;
  REQUIRE(find(verdicts, k25::VerdictId::nvml_p2p_unsupported) != nullptr);
  CHECK(cites(*find(verdicts, k25::VerdictId::nvml_p2p_unsupported), "topo-m-markdown-rtx5090.md", 12));
}

TEST_CASE("topo -p2p r: the capability from the command above it", "[doctor][pasted][topo]") {
  const std::vector<k25::TopoMatrix> matrices = k25::read_topo_matrices(pasted("topo-p2p-read.txt"));
  REQUIRE(matrices.size() == 1);
  CHECK(matrices[0].p2p);
  CHECK(matrices[0].capability == "read");
  const Pasted p = from_files({"topo-p2p-read.txt"});
  CHECK(k25::find_pair(p.facts(), 0, 1)->p2p_read == "OK");
  CHECK(k25::find_pair(p.facts(), 0, 2)->p2p_read == "chipset not supported");
  CHECK(k25::find_pair(p.facts(), 0, 2)->p2p_write.empty());
}

TEST_CASE("A topo matrix cut short is read as far as it goes, and said", "[doctor][pasted][topo]") {
  const std::vector<k25::TopoMatrix> matrices = k25::read_topo_matrices(pasted("topo-m-cut.txt"));
  REQUIRE(matrices.size() == 1);
  CHECK(matrices[0].cut);
  CHECK(matrices[0].rows_read == 3);
  const Pasted p = from_files({"topo-m-cut.txt"});
  CHECK(k25::find_pair(p.facts(), 0, 1)->path == k25::PathClass::several_switches);
  CHECK(k25::find_pair(p.facts(), 1, 2)->path == k25::PathClass::across_sockets);
  CHECK(k25::find_pair(p.facts(), 2, 3)->path == k25::PathClass::unknown);  // GPU2's row ends before GPU3
  REQUIRE(p.document.inputs.size() == 1);
  CHECK(p.document.inputs[0].families[0].added.find(
            "cut after 3 of its 4 GPU rows: read as far as it goes") != std::string::npos);
}

TEST_CASE("NCCL 2.4's Ring lines and its bare version line", "[doctor][pasted][nccl]") {
  const k25::NcclLog log = k25::read_nccl_log(pasted("nccl-2.4-rings.log"));
  REQUIRE(log.seen.versions.size() == 1);
  CHECK(log.seen.versions[0].version == "2.4.8+cuda10.1");
  CHECK(log.seen.versions[0].source.line == 2);
  REQUIRE(log.seen.communicators.size() == 1);
  CHECK(log.seen.communicators[0].key == "communicator 1 of nranks 4");
  CHECK(log.seen.communicators[0].rings == 1);
  CHECK(log.seen.connections.size() == 4);
  CHECK(log.seen.connections[0].communicator == "communicator 1 of nranks 4");
  // No busId in 2.4's Init lines: cudaDev is taken as nvidia-smi's index, and said.
  const Pasted p = from_files({"nccl-2.4-rings.log"});
  CHECK(p.facts().gpus.size() == 4);
  CHECK(transports(p.facts(), 0, 1) == "P2P/IPC");
  CHECK(std::any_of(p.facts().nccl.notes.begin(), p.facts().nccl.notes.end(), [](const std::string& note) {
    return note.find("cudaDev is taken as nvidia-smi's GPU index") != std::string::npos;
  }));
}

TEST_CASE("Channel lines naming the peer by busId, with nccl-tests' header in the same file",
          "[doctor][pasted][nccl]") {
  const Pasted p = from_files({"nccl-tests-2.10-a6000.txt"});
  REQUIRE(p.document.inputs.size() == 1);
  REQUIRE(p.document.inputs[0].families.size() == 2);  // nccl-tests' header and NCCL's log, one file
  CHECK(p.document.inputs[0].families[0].family == "NCCL INFO log");
  CHECK(p.document.inputs[0].families[1].family == "nccl-tests header");
  REQUIRE(p.facts().gpus.size() == 2);
  CHECK(p.facts().host == "ws-a6000");
  CHECK(p.facts().gpus[0].bus_id == "0000:c1:00.0");
  CHECK(p.facts().gpus[0].name == "NVIDIA RTX A6000");
  CHECK(transports(p.facts(), 0, 1) == "P2P/direct pointer");
  CHECK(p.model().nccl.connections[0].matched_by == "Init line");
  CHECK(p.facts().nccl_version == "2.10.3+cuda11.4");
  CHECK(p.facts().cuda_driver_version == "11.6");
}

TEST_CASE("Channel lines pasted without their prefix or an Init line: matched by their busIds",
          "[doctor][pasted][nccl]") {
  const Pasted p = from_files({"nccl-channels-unprefixed.txt"});
  REQUIRE(p.facts().gpus.size() == 2);
  CHECK(p.facts().gpus[1].bus_id == "0000:c2:00.0");
  CHECK(transports(p.facts(), 0, 1) == "P2P/direct pointer");
  REQUIRE_FALSE(p.model().nccl.connections.empty());
  CHECK(p.model().nccl.connections[0].communicator == "(unprefixed lines)");
  CHECK(p.model().nccl.connections[0].matched_by == "busId in the channel line");
  CHECK(p.document.inputs[0].families[0].added.find("4 of its 4 lines without their host:pid:tid prefix") !=
        std::string::npos);
}

TEST_CASE("A job that hung in init: channel lines without Init COMPLETE still give transports by rank",
          "[doctor][pasted][nccl]") {
  const Pasted p = from_files({"nccl-2.23-hung-init.log"});
  REQUIRE(p.model().nccl.communicators.size() == 1);
  CHECK_FALSE(p.model().nccl.communicators[0].complete);
  CHECK(transports(p.facts(), 0, 1) == "SHM/direct/direct");
  CHECK(std::any_of(p.facts().nccl.notes.begin(), p.facts().nccl.notes.end(), [](const std::string& note) {
    return note == "commId 0x3f4a9e1c22d07b51: its init never completed (Init START, no Init COMPLETE)";
  }));
}

TEST_CASE("Several communicators in one log are keyed by communicator and rank, never by the rank alone",
          "[doctor][pasted][nccl][verdicts]") {
  const Pasted p = from_files({"nccl-tp4-dp2.log"});
  const k25::NcclSeen& nccl = p.model().nccl;
  REQUIRE(nccl.communicators.size() == 2);
  CHECK(nccl.communicators[0].key == "commId 0x11aa22bb33cc44dd");
  CHECK(nccl.communicators[1].key == "commId 0x55ee66ff77008811");
  REQUIRE(p.facts().gpus.size() == 8);
  // Each group's rank 0 -> 1 is its own pair of GPUs: 0-1 in the first, 4-5 in the second.
  CHECK(transports(p.facts(), 0, 1) == "P2P/CUMEM/read");
  CHECK(transports(p.facts(), 4, 5) == "P2P/CUMEM/read");
  CHECK(transports(p.facts(), 0, 5).empty());
  CHECK(transports(p.facts(), 1, 4).empty());
  CHECK(transports(p.facts(), 3, 4).empty());  // the groups' rings do not cross
  CHECK(p.facts().host == "h100-tp");
}

TEST_CASE("NCCL's GRAPH path table: two GPUs of one switch routed through the CPU",
          "[doctor][pasted][nccl][verdicts]") {
  const Pasted p = from_files({"topo-m-rtx4090-4gpu.txt", "nccl-2.21-graph-rtx4090.log"});
  const k25::NodePair* pair = k25::find_pair(p.facts(), 0, 1);
  CHECK(pair->path == k25::PathClass::same_switch);
  CHECK(pair->nccl_route == k25::PathClass::host_bridge);
  const std::vector<k25::NodeVerdict>& verdicts = p.document.verdicts;
  const k25::NodeVerdict* through_cpu = find(verdicts, k25::VerdictId::switch_through_cpu);
  REQUIRE(through_cpu != nullptr);
  CHECK(through_cpu->severity == k25::Severity::cost);
  CHECK(through_cpu->finding.find("6 GPU pairs below one PCIe switch have no P2P between them") == 0);
  CHECK(cites(*through_cpu, "topo-m-rtx4090-4gpu.txt", 2));
  CHECK(cites(*through_cpu, "nccl-2.21-graph-rtx4090.log", 11));
  // NCCL had no P2P there: SHM is no choice against P2P, so nccl_not_p2p does not say it was possible.
  CHECK(find(verdicts, k25::VerdictId::nccl_not_p2p) == nullptr);
}

TEST_CASE("SHM where P2P was possible, from a pasted topo -m and a log", "[doctor][pasted][verdicts]") {
  const Pasted p = from_files({"mixed-paste.md"});
  REQUIRE(p.document.inputs[0].families.size() == 3);  // topo -m, the log and the command line in one paste
  const k25::NodeVerdict* not_p2p = find(p.document.verdicts, k25::VerdictId::nccl_not_p2p);
  REQUIRE(not_p2p != nullptr);
  CHECK(not_p2p->finding ==
        "NCCL connected 4 GPU pairs through SHM where the path allows P2P (0-1, 0-3, 1-2, 2-3)");
  CHECK(cites(*not_p2p, "mixed-paste.md", 20));
  CHECK(cites(*not_p2p, "mixed-paste.md", 6));
  CHECK(p.facts().iommu.mode == "passthrough");
  CHECK(p.facts().iommu.cmdline_words == "amd_iommu=on iommu=pt");
  CHECK(p.document.headline.find("[NCCL through shared memory where P2P was possible]") != std::string::npos);
}

TEST_CASE("P2P limited by the environment: NCCL_P2P_LEVEL=LOC", "[doctor][pasted][verdicts]") {
  const Pasted p = from_files({"topo-m-rtx4090-4gpu.txt", "nccl-env-p2p-level.log"});
  const k25::NodeVerdict* limited = find(p.document.verdicts, k25::VerdictId::p2p_env_limited);
  REQUIRE(limited != nullptr);
  CHECK(limited->severity == k25::Severity::cost);
  CHECK(
      limited->finding ==
      "the environment set NCCL_P2P_LEVEL=LOC: 6 GPU pairs whose path allows P2P are kept off it (0-1, 0-2, 0-3, 1-2, 1-3, 2-3)");
  REQUIRE(limited->evidence.size() == 1);
  CHECK(limited->evidence[0].line == 3);
  const k25::NodeVerdict* not_p2p = find(p.document.verdicts, k25::VerdictId::nccl_not_p2p);
  REQUIRE(not_p2p != nullptr);
  CHECK(not_p2p->fix.find("the log says the environment set NCCL_P2P_LEVEL=LOC") == 0);
}

TEST_CASE("An NCCL known not to run on the GPU: 2.25 on GeForce Blackwell", "[doctor][pasted][verdicts]") {
  const Pasted p = from_files({"nccl-tests-2.25-rtx5090.txt"});
  REQUIRE(p.facts().gpus.size() == 2);
  CHECK(p.facts().gpus[0].name == "NVIDIA GeForce RTX 5090");
  const k25::NodeVerdict* version = find(p.document.verdicts, k25::VerdictId::nccl_version_gpu);
  REQUIRE(version != nullptr);
  CHECK(version->severity == k25::Severity::cost);
  CHECK(version->finding.find("NCCL 2.25.1+cuda12.8 on GPU 1 (NVIDIA GeForce RTX 5090)") == 0);
  CHECK(version->fix.find("NCCL 2.26.2 or later") != std::string::npos);
  CHECK(version->url == "https://github.com/NVIDIA/nccl-tests/issues/287");
  CHECK(cites(*version, "nccl-tests-2.25-rtx5090.txt", 9));   // NCCL version 2.25.1
  CHECK(cites(*version, "nccl-tests-2.25-rtx5090.txt", 10));  // ncclMaxSharedMem ... exceeds
  REQUIRE_FALSE(p.model().nccl.warnings.empty());
  CHECK(p.model().nccl.warnings[0].line == 14);
  // The same GPUs with 2.26.2: no such verdict.
  std::string text = pasted_file_text(kPasted + "nccl-tests-2.25-rtx5090.txt");
  text.replace(text.find("2.25.1"), 6, "2.26.2");
  text.erase(text.find("epyc-5090:5120:5141 [0] NCCL INFO ncclMaxSharedMem"),
             text.find("epyc-5090:5120:5141 [0] NCCL INFO ncclCommInitAll") -
                 text.find("epyc-5090:5120:5141 [0] NCCL INFO ncclMaxSharedMem"));
  k25::NodeBuildInputs inputs;
  k25::read_pasted(k25::pasted_text("fixed.txt", text), inputs.pasted);
  inputs.host = "epyc-5090";
  k25::DoctorDocument fixed;
  fixed.model = k25::build_node_model(std::move(inputs));
  k25::derive_verdicts(fixed);
  CHECK(find(fixed.verdicts, k25::VerdictId::nccl_version_gpu) == nullptr);
}

TEST_CASE("A healthy NVLink node from pasted text: no finding that costs", "[doctor][pasted][verdicts]") {
  k25::DoctorRunOptions options;
  options.this_host = "the-test-machine";
  options.measure = false;
  options.from = {kPasted + "topo-m-spaces-h100.txt",
                  std::string(K25_SOURCE_DIR) + "/tests/doctor/data/h100-8gpu-nvlink/nccl-info.log"};
  const k25::DoctorDocument document = k25::run_doctor(options, k25::absent_nccl_backend());
  CHECK(verdict_ids(document.verdicts) == std::vector<std::string>{"nvlink_pairs:info"});
  CHECK(document.verdicts[0].finding == "28 of 28 GPU pairs linked by NVLink (28 GPU pairs NV18)");
  CHECK(document.headline == "hgx-h100-07: 8 GPUs, NVLink (28 GPU pairs NVLink); no finding that costs");
}

TEST_CASE("A topology dump cut at the end of a paste is read as far as it goes, and said",
          "[doctor][pasted][xml]") {
  const k25::NcclTopologyXml dump = k25::read_nccl_topology_xml(pasted("nccl-topo-cut.xml"));
  CHECK(dump.found);
  CHECK(dump.gpus.size() == 2);
  CHECK(dump.stopped.find("the text ends inside") != std::string::npos);
  const Pasted p = from_files({"nccl-topo-cut.xml"});
  CHECK(p.facts().gpus.size() == 2);
  CHECK(k25::find_pair(p.facts(), 0, 1)->path == k25::PathClass::nvlink);
  CHECK(std::any_of(p.facts().nccl.notes.begin(), p.facts().nccl.notes.end(), [](const std::string& note) {
    return note.find("read as far as it goes (its 2 GPUs)") != std::string::npos;
  }));
  // Broken XML stops where it breaks, never the run.
  const k25::NcclTopologyXml broken = k25::read_nccl_topology_xml(
      k25::pasted_text("broken.xml", "<system version=\"1\">\n<cpu numaid=\"0\">\n</pci>\n</system>"));
  CHECK(broken.found);
  CHECK(broken.stopped == "line 3: </pci> closes <cpu>");
  CHECK_FALSE(k25::read_nccl_topology_xml(k25::pasted_text("log.txt", "NCCL INFO Channel 00")).found);
}

TEST_CASE("lspci -vvv: bridges, ACSCtl, LnkSta against LnkCap, and the paths from the bus numbers",
          "[doctor][pasted][lspci]") {
  const Pasted p = from_files({"lspci-vvv-plx.txt"});
  const k25::NodeFacts& facts = p.facts();
  REQUIRE(facts.gpus.size() == 2);
  CHECK(facts.gpus[0].bus_id == "0000:04:00.0");
  CHECK(facts.gpus[0].name == "Tesla P100 PCIe 16GB");
  const k25::NodePair* pair = k25::find_pair(facts, 0, 1);
  CHECK(pair->path == k25::PathClass::same_switch);
  CHECK(pair->bridges == std::vector<std::string>{"0000:02:08.0", "0000:01:00.0", "0000:02:10.0"});
  CHECK(facts.gpus[1].link_width == 8);
  const std::vector<std::string> got = verdict_ids(p.document.verdicts);
  CHECK(got == std::vector<std::string>{"acs_redirect:cost", "link_below_max:cost"});
  const k25::NodeVerdict* acs = find(p.document.verdicts, k25::VerdictId::acs_redirect);
  CHECK(acs->finding.find("ACS redirect bits on 2 bridges") == 0);
  CHECK(cites(*acs, "lspci-vvv-plx.txt", 11));
  const k25::NodeVerdict* link = find(p.document.verdicts, k25::VerdictId::link_below_max);
  CHECK(link->finding ==
        "GPU 1 (0000:05:00.0)'s link trained at Gen3 x8, below the Gen3 x16 both ends support");
  CHECK(cites(*link, "lspci-vvv-plx.txt", 35));
}

TEST_CASE("lspci -tv: the tree's root complexes and switch place the GPUs", "[doctor][pasted][lspci]") {
  const Pasted p = from_files({"lspci-tv-epyc.txt"});
  const k25::NodeFacts& facts = p.facts();
  REQUIRE(facts.gpus.size() == 4);
  CHECK(facts.gpus[0].bus_id == "0000:43:00.0");
  CHECK(facts.gpus[3].bus_id == "0000:c1:00.0");
  CHECK(k25::find_pair(facts, 0, 1)->path == k25::PathClass::same_switch);
  CHECK(k25::find_pair(facts, 2, 3)->path == k25::PathClass::across_host_bridges);
  CHECK(find(p.document.verdicts, k25::VerdictId::across_host_bridges) != nullptr);
}

TEST_CASE("p2pBandwidthLatencyTest: P2P slower than staging through host memory",
          "[doctor][pasted][bandwidth]") {
  const Pasted p = from_files({"p2pBandwidthLatencyTest-slower.txt"});
  REQUIRE(p.facts().gpus.size() == 4);
  CHECK(p.facts().gpus[0].bus_id == "0000:1b:00.0");
  const k25::NodeVerdict* slower = find(p.document.verdicts, k25::VerdictId::p2p_slower_than_disabled);
  REQUIRE(slower != nullptr);
  CHECK(
      slower->finding.find(
          "12 directions of GPU pairs copy slower with P2P than through host memory (0->1 5.2 GB/s with P2P, 11.8 without") ==
      0);
  CHECK(cites(*slower, "p2pBandwidthLatencyTest-slower.txt", 36));  // P2P=Enabled row 0
  CHECK(cites(*slower, "p2pBandwidthLatencyTest-slower.txt", 30));  // P2P=Disabled row 0
}

TEST_CASE("A bandwidth matrix cut short is read as far as it goes, and CANNOT Access says no P2P",
          "[doctor][pasted][bandwidth]") {
  const k25::BandwidthTests tests = k25::read_bandwidth_tests(pasted("p2pBandwidthLatencyTest-cut.txt"));
  REQUIRE(tests.matrices.size() == 3);
  CHECK(tests.matrices[2].cut);
  CHECK(tests.matrices[2].rows_read == 1);
  const Pasted p = from_files({"p2pBandwidthLatencyTest-cut.txt"});
  REQUIRE(p.model().bandwidth.size() == 2);
  CHECK(p.model().bandwidth[0].p2p_enabled_gbps == 20.29);
  CHECK(p.model().bandwidth[1].p2p_enabled_gbps == -1);  // row 1 of that matrix was cut
  CHECK(p.model().bandwidth[1].p2p_disabled_gbps == 20.44);
  CHECK(std::any_of(p.facts().nccl.notes.begin(), p.facts().nccl.notes.end(), [](const std::string& note) {
    return note.find("is cut after 1 of its 2 rows: read as far as it goes") != std::string::npos;
  }));
}

TEST_CASE("nvbandwidth's GPU(row) <- GPU(column) matrix and its bus ids", "[doctor][pasted][bandwidth]") {
  const Pasted p = from_files({"nvbandwidth-a6000.txt"});
  REQUIRE(p.facts().gpus.size() == 4);
  CHECK(p.facts().gpus[1].bus_id == "0000:25:00.0");
  // Row 0 <- column 1: a copy from GPU 1 to GPU 0.
  const auto from_1_to_0 = std::find_if(p.model().bandwidth.begin(), p.model().bandwidth.end(),
                                        [](const k25::PairBandwidth& b) { return b.src == 1 && b.dst == 0; });
  REQUIRE(from_1_to_0 != p.model().bandwidth.end());
  CHECK(from_1_to_0->p2p_enabled_gbps == 26.31);
  CHECK(from_1_to_0->tool == "nvbandwidth");
}

TEST_CASE("dcgmi diag JSON: a failed PCIe test, and the same JSON cut short", "[doctor][pasted][dcgm]") {
  const Pasted p = from_files({"dcgm-diag-pcie-fail.json"});
  REQUIRE(p.model().dcgm.size() == 2);
  CHECK(p.model().dcgm[1].status == "FAIL");
  CHECK(p.model().dcgm[1].detail.find("Expected PCIe width x16 but found x8") != std::string::npos);
  const k25::NodeVerdict* failed = find(p.document.verdicts, k25::VerdictId::dcgm_failed);
  REQUIRE(failed != nullptr);
  CHECK(failed->severity == k25::Severity::cost);
  CHECK(cites(*failed, "dcgm-diag-pcie-fail.json", 36));
  const k25::DcgmDiag cut = k25::read_dcgm_diag(pasted("dcgm-diag-cut.json"));
  REQUIRE(cut.results.size() == 1);  // the PCIe result before the cut; GPU 1's has no status yet
  CHECK(cut.results[0].gpu == 0);
}

TEST_CASE("A kernel command line: intel_iommu=on without iommu=pt", "[doctor][pasted][cmdline]") {
  const Pasted p = from_files({"cmdline-intel-iommu.txt", "topo-m-rtx4090-4gpu.txt"});
  CHECK(p.facts().iommu.mode == "translated");
  CHECK(p.facts().iommu.cmdline_words == "intel_iommu=on");
  const k25::NodeVerdict* iommu = find(p.document.verdicts, k25::VerdictId::iommu_translated);
  REQUIRE(iommu != nullptr);
  CHECK(iommu->severity == k25::Severity::check);  // a command line cannot show the default domain
  CHECK(cites(*iommu, "cmdline-intel-iommu.txt", 1));
}

TEST_CASE("A file of no family is named and left out, never fatal", "[doctor][pasted]") {
  const Pasted p = from_files({"not-a-format.txt", "topo-m-rtx4090-4gpu.txt"});
  REQUIRE(p.document.inputs.size() == 2);
  CHECK(p.document.inputs[0].families.empty());
  CHECK(p.document.inputs[0].left_out.find("none of doctor's formats (nvidia-smi topo -m, NCCL INFO log") ==
        0);
  CHECK(p.facts().gpus.size() == 4);
  CHECK(k25::doctor_markdown(p.document).find("not-a-format.txt`: left out: none of doctor's formats") !=
        std::string::npos);
}

TEST_CASE("Two sources that disagree on a fact are said, with both lines", "[doctor][pasted][model]") {
  // topo -m says PIX between GPUs 0 and 1 of the 4090 node; an lspci of another shape says otherwise.
  const std::string topo = "        GPU0    GPU1\nGPU0     X      PXB\nGPU1    PXB      X\n";
  const std::string xml =
      "<system version=\"1\"><cpu numaid=\"0\"><pci busid=\"0000:01:00.0\"><gpu dev=\"0\" sm=\"89\"/></pci>"
      "<pci busid=\"0000:02:00.0\"><gpu dev=\"1\" sm=\"89\"/></pci></cpu></system>\n";
  k25::NodeBuildInputs inputs;
  k25::read_pasted(k25::pasted_text("topo.txt", topo), inputs.pasted);
  k25::read_pasted(k25::pasted_text("dump.xml", xml), inputs.pasted);
  const k25::NodeModel model = k25::build_node_model(std::move(inputs));
  REQUIRE(model.disagreements.size() == 1);
  const k25::Disagreement& d = model.disagreements[0];
  CHECK(d.subject == "GPU pair 0-1");
  CHECK(d.kind == k25::FactKind::pair_path);
  REQUIRE(d.said.size() == 2);
  CHECK(d.said[0].value == "several_switches");
  CHECK(d.said[0].source.where() == "topo.txt:2");
  CHECK(d.said[1].value == "host_bridge");
  CHECK(d.said[1].source.file == "dump.xml");
}

TEST_CASE("Another host's files never mix with this machine's sysfs", "[doctor][pasted][model]") {
  // --nccl-log of another host, no --root: this machine's sysfs, IOMMU and measure are not read.
  k25::DoctorRunOptions options;
  options.this_host = "the-test-machine";
  options.nccl_logs = {kPasted + "nccl-2.21-graph-rtx4090.log"};
  const k25::DoctorDocument document = k25::run_doctor(options, k25::absent_nccl_backend());
  CHECK_FALSE(document.model.this_host);
  CHECK(document.model.facts.host == "rig7");
  CHECK(document.model.facts.iommu.mode == "unknown");
  CHECK(document.model.facts.bridges.empty());
  CHECK(document.model.facts.p2p.status == "not measured: the node is the inputs', not this host");
  CHECK(document.model.facts.nccl.notes.front().find(
            "this host's sysfs, NVML and IOMMU were not read: the node is rig7") == 0);
}

TEST_CASE("Every family's sniff takes its own fixtures", "[doctor][pasted]") {
  const std::vector<std::pair<std::string, k25::PastedFamily>> fixtures = {
      {"topo-m-tabs-rtx4090.txt", k25::PastedFamily::topo_matrix},
      {"topo-m-markdown-rtx5090.md", k25::PastedFamily::topo_matrix},
      {"nccl-2.4-rings.log", k25::PastedFamily::nccl_log},
      {"nccl-channels-unprefixed.txt", k25::PastedFamily::nccl_log},
      {"nccl-tests-2.10-a6000.txt", k25::PastedFamily::nccl_tests},
      {"nccl-topo-cut.xml", k25::PastedFamily::nccl_topology},
      {"lspci-vvv-plx.txt", k25::PastedFamily::lspci},
      {"lspci-tv-epyc.txt", k25::PastedFamily::lspci},
      {"p2pBandwidthLatencyTest-slower.txt", k25::PastedFamily::bandwidth},
      {"nvbandwidth-a6000.txt", k25::PastedFamily::bandwidth},
      {"dcgm-diag-pcie-fail.json", k25::PastedFamily::dcgm},
      {"cmdline-intel-iommu.txt", k25::PastedFamily::cmdline},
  };
  for (const auto& [file, family] : fixtures) {
    INFO(file);
    CHECK(k25::doctor_format(family).sniff(pasted(file)));
  }
  for (const k25::DoctorFormat& format : k25::doctor_formats()) {
    INFO(format.name);
    CHECK_FALSE(format.sniff(pasted("not-a-format.txt")));
  }
}

TEST_CASE("docs/doctor.md holds the families' table made from the code's", "[doctor][docs]") {
  const std::string doc = pasted_file_text(std::string(K25_SOURCE_DIR) + "/docs/doctor.md");
  const std::string begin = "<!-- doctor-formats: generated from src/doctor/readers/input_formats.cpp -->\n";
  const std::string end = "<!-- end of generated doctor-formats -->";
  const std::size_t from = doc.find(begin);
  REQUIRE(from != std::string::npos);
  const std::size_t to = doc.find(end, from);
  REQUIRE(to != std::string::npos);
  CHECK(doc.substr(from + begin.size(), to - from - begin.size()) == k25::doctor_formats_markdown() + "\n");
}
