// doctor.json's one typed document: a document with every field set, written by the writer and read back by
// the reader every doctor.json reader uses, gives the same document (a reader naming a field the writer does
// not write loses its value, and this fails); the file the writer wrote for tools/plot-doctor (whose fields
// plot_check.sh then reads); and a doctor.json of schema 1 still reads.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "doctor/doctor_run.hpp"
#include "doctor/model/doctor_document.hpp"

namespace {

// Every field of the document set to a value no default has.
k25::DoctorDocument full_document() {
  k25::DoctorDocument d;
  d.source = "doctor.json";
  d.tool_version = "9.9.9";
  d.git_sha = "abc1234";
  d.created_at = "2030-01-02T03:04:05Z";
  d.command_line = "k25comm doctor --from paste.txt";
  d.headline = "node9: 2 GPUs";
  k25::NodeModel& m = d.model;
  k25::NodeFacts& f = m.facts;
  f.host = "node9";
  f.root = "/copy";
  f.sysfs_found = true;
  k25::NodeGpu gpu;
  gpu.index = 1;
  gpu.bus_id = "0000:4f:00.0";
  gpu.name = "NVIDIA GeForce RTX 5090";
  gpu.sm = 120;
  gpu.numa_node = 1;
  gpu.local_cpus = "8-15";
  gpu.link_gen = 4;
  gpu.link_width = 8;
  gpu.gpu_gen_max = 5;
  gpu.gpu_width_max = 16;
  gpu.port_gen_max = 4;
  gpu.port_width_max = 16;
  gpu.port = "0000:40:01.1";
  gpu.iommu_group = "7";
  gpu.iommu_type = "DMA-FQ";
  gpu.nvlinks = 2;
  f.gpus = {gpu};
  k25::NodeBridge bridge;
  bridge.bus_id = "0000:40:01.1";
  bridge.vendor = "0x1022";
  bridge.device = "0x1483";
  bridge.port_type = "root port";
  bridge.port_type_from = "config space";
  bridge.parent = "0000:40:00.0";
  bridge.link_gen = 4;
  bridge.link_width = 16;
  bridge.gen_max = 4;
  bridge.width_max = 16;
  bridge.acs = "read";
  bridge.acs_control = 0x1d;
  bridge.acs_bits = "SrcValid+ TransBlk- ReqRedir+";
  bridge.acs_redirects = true;
  f.bridges = {bridge};
  k25::NodePair pair;
  pair.a = 0;
  pair.b = 1;
  pair.path = k25::PathClass::several_switches;
  pair.bridges = {"0000:40:01.1"};
  pair.nvlinks = 4;
  pair.p2p_read = "OK";
  pair.p2p_write = "GPU not supported";
  pair.p2p_atomics = "not supported";
  pair.p2p_nvlink = "OK";
  pair.nccl_path = k25::PathClass::same_switch;
  pair.nccl_route = k25::PathClass::host_bridge;
  pair.nccl_transports = {{k25::NcclTransportKind::shm, "SHM/direct/direct"},
                          {k25::NcclTransportKind::p2p, "P2P/IPC"}};
  pair.nccl_p2p_disabled = true;
  f.pairs = {pair};
  f.iommu = {"translated", 12, {"DMA-FQ"}, "intel_iommu=on", "the GPUs' groups"};
  f.driver_version = "570.1";
  f.cuda_driver_version = "12.8";
  f.nccl_version = "2.25.1";
  f.nvml = "read";
  f.ranks = {{3, "0000:4f:00.0", "0-3"}};
  f.nccl = {"topo.xml", {"a.log"}, "2.25.1", {"NCCL_P2P_LEVEL set by environment to LOC"}, {"a note"}};
  f.p2p.status = "measured";
  f.p2p.bus_ids = {"0000:4f:00.0", "0000:50:00.0"};
  f.p2p.bytes = 1 << 20;
  f.p2p.small_bytes = 8;
  f.p2p.repeats = 3;
  f.p2p.directions = {{0, 1, true, 20.5, 19.5, 21.5, 9.25}, {1, 0, false, -1, -1, 11.5, 14.5}};
  f.p2p.note = "a note";
  f.unseen = {"something"};
  const k25::FactSource source{"paste.txt", 7, "GPU0 X PXB"};
  m.host_from = "--host";
  m.this_host = true;
  m.observations = {{"GPU pair 0-1", k25::FactKind::pair_nccl_route, "host_bridge", source}};
  m.disagreements = {{"GPU pair 0-1", k25::FactKind::pair_path, {m.observations[0], m.observations[0]}}};
  m.nccl.versions = {{"2.25.1+cuda12.8", source}};
  m.nccl.settings = {{"NCCL_P2P_LEVEL", "LOC", source}};
  m.nccl.communicators = {{"commId 0x1", 2, {{0, "0000:4f:00.0", 1, 1, "node9", source}}, true, 2, 1}};
  m.nccl.connections = {{"commId 0x1",
                         0,
                         1,
                         "0",
                         "1",
                         {k25::NcclTransportKind::shm, "SHM/direct/direct"},
                         3,
                         0,
                         1,
                         "Init line",
                         source}};
  m.nccl.shared_memory = {{82240, 79856, 1200, source}};
  m.nccl.warnings = {source};
  m.bandwidth = {{0, 1, 5.25, 11.5, 6.5, 15.5, "p2pBandwidthLatencyTest", source, source}};
  m.dcgm = {{"PCIe", 1, "FAIL", "width x8", source}};
  d.inputs = {{"paste.txt", {{"nvidia-smi topo -m", "2 GPUs"}}, ""},
              {"junk.txt", {}, "none of doctor's formats"}};
  d.backends = {"capture.json", "read", {{"AllReduce", 14336u, "nccl", 122, 20.5}}, {"a rule"}};
  k25::NodeVerdict verdict;
  verdict.id = k25::VerdictId::switch_through_cpu;
  verdict.severity = k25::Severity::check;
  verdict.finding = "finding";
  verdict.cost = "cost";
  verdict.fix = "fix";
  verdict.source = "source";
  verdict.url = "https://example.org";
  verdict.evidence = {source};
  d.verdicts = {verdict};
  return d;
}

}  // namespace

TEST_CASE("doctor.json: every field the writer writes reads back, and writes again the same",
          "[doctor][document]") {
  const k25::DoctorDocument written = full_document();
  const nlohmann::json first = nlohmann::json::parse(k25::doctor_json_text(written));
  const k25::DoctorDocument back = k25::doctor_input_from_json(first, "doctor.json");
  const nlohmann::json second = back;
  CHECK(first == second);  // every field written is read
  // Every field read is written: a reader naming a field the writer does not write reads its default.
  CHECK(back.model.facts == written.model.facts);
  CHECK(back.model.nccl == written.model.nccl);
  CHECK(back.model == written.model);
  CHECK(back.inputs == written.inputs);
  CHECK(back.backends == written.backends);
  CHECK(back.verdicts == written.verdicts);
  CHECK(back == written);
  CHECK(back.schema_version == k25::kDoctorSchemaVersion);
  CHECK(back.model.nccl.connections[0].transport.kind == k25::NcclTransportKind::shm);
  CHECK(back.model.facts.pairs[0].nccl_transports[1].kind == k25::NcclTransportKind::p2p);
  CHECK(back.verdicts[0].evidence[0].where() == "paste.txt:7");
}

TEST_CASE("doctor.json of schema 1 (before the pasted inputs) reads", "[doctor][document]") {
  const nlohmann::json old = {
      {"schema_version", 1},
      {"headline", "h: 2 GPUs"},
      {"node",
       {{"host", "h"},
        {"gpus", {{{"index", 0}, {"bus_id", "0000:01:00.0"}}, {{"index", 1}, {"bus_id", "0000:02:00.0"}}}},
        {"pairs",
         {{{"a", 0}, {"b", 1}, {"path", "same_switch"}, {"nccl_transport", "SHM/direct/direct, P2P/IPC"}}}}}},
      {"backends",
       {{"file", ""}, {"status", ""}, {"runs", nlohmann::json::array()}, {"notes", nlohmann::json::array()}}},
      {"verdicts", {{{"id", "cross_socket"}, {"severity", "cost"}, {"finding", "f"}, {"line", "cost: f"}}}}};
  const k25::DoctorDocument back = k25::doctor_input_from_json(old, "old.json");
  CHECK(back.schema_version == 1);
  CHECK(back.model.this_host);
  REQUIRE(back.model.facts.pairs.size() == 1);
  CHECK(back.model.facts.pairs[0].path == k25::PathClass::same_switch);
  REQUIRE(back.model.facts.pairs[0].nccl_transports.size() == 2);
  CHECK(back.model.facts.pairs[0].nccl_transports[0].kind == k25::NcclTransportKind::shm);
  CHECK(back.verdicts.at(0).id == k25::VerdictId::cross_socket);
}

TEST_CASE("doctor.json as the writer writes it for tools/plot-doctor", "[doctor][document][plot]") {
  // plot_check.sh runs tools/plot-doctor on these files: a field plot-doctor names that the writer does not
  // write fails it there.
  const char* chosen = std::getenv("K25_DOCTOR_WRITTEN_DIR");
  const std::filesystem::path dir = chosen != nullptr ? std::string(chosen) : std::string(K25_DOCTOR_WRITTEN);
  std::filesystem::create_directories(dir / "measured");
  std::filesystem::create_directories(dir / "none");
  k25::DoctorDocument measured = full_document();
  std::ofstream(dir / "measured/doctor.json") << k25::doctor_json_text(measured);
  k25::DoctorDocument none = full_document();
  none.model.facts.p2p = k25::P2pMeasurement{};
  none.model.facts.p2p.status = "no GPU visible";
  std::ofstream(dir / "none/doctor.json") << k25::doctor_json_text(none);
  CHECK(std::filesystem::file_size(dir / "measured/doctor.json") > 0);
}
