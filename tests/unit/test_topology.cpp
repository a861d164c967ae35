// Unit tests of the topology stage that need no GPU: link limits, NVLink decoding, labelling, sysfs parsing.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "topology/link_limits.hpp"
#include "topology/pcie_sysfs.hpp"
#include "topology/topology_label.hpp"

namespace fs = std::filesystem;

namespace {

k25::GpuInfo pcie_gpu(int rank, int gen, int width) {
  k25::GpuInfo g;
  g.rank = rank;
  g.host = "node0";
  g.bus_id = "0000:0" + std::to_string(rank) + ":00.0";
  g.pcie_gen = 1;  // idle GPUs down-train: the limit must use the maximum
  g.pcie_width = width;
  g.pcie_gen_max = gen;
  g.pcie_width_max = width;
  return g;
}

k25::GpuInfo nvlink_gpu(int rank, int version, int links) {
  k25::GpuInfo g = pcie_gpu(rank, 5, 16);
  g.nvlinks = links;
  g.nvlink_version = version;
  return g;
}

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text << "\n";
}

// A throw-away folder under the system temp dir, removed at scope exit.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("k25-topology-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

TEST_CASE("PCIe limits per direction follow generation, width and encoding", "[topology]") {
  CHECK(*k25::pcie_limit_gbps(5, 16) == Approx(63.015).epsilon(1e-4));  // 32 GT/s x 16 x 128/130 / 8
  CHECK(*k25::pcie_limit_gbps(4, 16) == Approx(31.508).epsilon(1e-4));
  CHECK(*k25::pcie_limit_gbps(3, 16) == Approx(15.754).epsilon(1e-4));
  CHECK(*k25::pcie_limit_gbps(5, 8) == Approx(31.508).epsilon(1e-4));
  CHECK(*k25::pcie_limit_gbps(1, 16) == Approx(4.0));  // 2.5 GT/s x 16 x 8/10 / 8
  CHECK(*k25::pcie_limit_gbps(6, 16) == Approx(121.0));
  CHECK_FALSE(k25::pcie_limit_gbps(0, 16));
  CHECK_FALSE(k25::pcie_limit_gbps(5, 0));
  CHECK_FALSE(k25::pcie_limit_gbps(9, 16));
}

TEST_CASE("NVLink limits per direction are links times the per-link rate", "[topology]") {
  CHECK(*k25::nvlink_limit_gbps(4, 18) == Approx(450.0));  // H100/H200 SXM
  CHECK(*k25::nvlink_limit_gbps(5, 18) == Approx(900.0));  // B200
  CHECK(*k25::nvlink_limit_gbps(3, 12) == Approx(300.0));  // A100
  CHECK(*k25::nvlink_limit_gbps(2, 6) == Approx(150.0));   // V100
  CHECK(*k25::nvlink_limit_gbps(1, 4) == Approx(80.0));    // P100
  CHECK_FALSE(k25::nvlink_limit_gbps(4, 0));
  CHECK_FALSE(k25::nvlink_limit_gbps(0, 18));
}

TEST_CASE("NVLink generation from compute capability and from NVML's version enum", "[topology]") {
  CHECK(k25::nvlink_generation_for_compute(9) == 4);
  CHECK(k25::nvlink_generation_for_compute(10) == 5);
  CHECK(k25::nvlink_generation_for_compute(8) == 3);
  CHECK(k25::nvlink_generation_for_compute(12) ==
        0);  // consumer/workstation Blackwell: no NVLink generation known
  CHECK(k25::nvlink_generation_from_nvml(6) == 4);  // NVML_NVLINK_VERSION_4_0
  CHECK(k25::nvlink_generation_from_nvml(7) == 5);
  CHECK(k25::nvlink_generation_from_nvml(4) == 3);
  CHECK(k25::nvlink_generation_from_nvml(0) == 0);
}

TEST_CASE("sysfs link speeds map to PCIe generations", "[topology]") {
  CHECK(k25::pcie_generation_of_speed("32.0 GT/s PCIe") == 5);
  CHECK(k25::pcie_generation_of_speed("16.0 GT/s PCIe") == 4);
  CHECK(k25::pcie_generation_of_speed("8 GT/s") == 3);
  CHECK(k25::pcie_generation_of_speed("2.5 GT/s PCIe") == 1);
  CHECK(k25::pcie_generation_of_speed("64.0 GT/s PCIe") == 6);
  CHECK(k25::pcie_generation_of_speed("Unknown") == 0);
  CHECK(k25::pcie_generation_of_speed("") == 0);
}

TEST_CASE("a run is labelled host, pcie, nvlink or mixed, with the slowest link's limit", "[topology]") {
  k25::TopologyInfo info;
  SECTION("no GPU: host") {
    k25::label_topology(info, 1);
    CHECK(info.kind == "host");
    CHECK_FALSE(info.link_limit_gbps);
  }
  SECTION("all PCIe: the slowest maximum link sets the limit") {
    info.gpus = {pcie_gpu(0, 5, 16), pcie_gpu(1, 4, 16)};
    k25::label_topology(info, 1);
    CHECK(info.kind == "pcie");
    REQUIRE(info.link_limit_gbps);
    CHECK(*info.link_limit_gbps == Approx(31.508).epsilon(1e-4));
    CHECK(info.link_description.find("PCIe Gen4 x16") != std::string::npos);
  }
  SECTION("8x RTX PRO 6000 (PCIe Gen5 x16): 63 GB/s") {
    for (int r = 0; r < 8; ++r) info.gpus.push_back(pcie_gpu(r, 5, 16));
    k25::label_topology(info, 1);
    CHECK(info.kind == "pcie");
    CHECK(*info.link_limit_gbps == Approx(63.015).epsilon(1e-4));
  }
  SECTION("all NVLink: 450 GB/s on H200 SXM") {
    for (int r = 0; r < 8; ++r) info.gpus.push_back(nvlink_gpu(r, 4, 18));
    k25::label_topology(info, 1);
    CHECK(info.kind == "nvlink");
    CHECK(*info.link_limit_gbps == Approx(450.0));
    CHECK(info.link_description.find("NVLink 4 x18") != std::string::npos);
  }
  SECTION("some NVLink: mixed, bounded by PCIe") {
    info.gpus = {nvlink_gpu(0, 4, 18), pcie_gpu(1, 5, 16)};
    k25::label_topology(info, 1);
    CHECK(info.kind == "mixed");
    CHECK(*info.link_limit_gbps == Approx(63.015).epsilon(1e-4));
  }
  SECTION("an unknown link: no limit rather than a wrong one") {
    info.gpus = {pcie_gpu(0, 5, 16), pcie_gpu(1, 0, 0)};
    info.gpus[1].pcie_gen = 0;
    info.gpus[1].pcie_width = 0;
    k25::label_topology(info, 1);
    CHECK(info.kind == "pcie");
    CHECK_FALSE(info.link_limit_gbps);
  }
  SECTION("several hosts: the network sets the limit, not known") {
    info.gpus = {pcie_gpu(0, 5, 16), pcie_gpu(1, 5, 16)};
    k25::label_topology(info, 2);
    CHECK(info.kind == "pcie");
    CHECK_FALSE(info.link_limit_gbps);
    CHECK(info.link_description.find("2 hosts") != std::string::npos);
  }
  SECTION("no GPU on several hosts: host memory, and the network between the hosts") {
    k25::label_topology(info, 2);
    CHECK(info.kind == "host");
    CHECK_FALSE(info.link_limit_gbps);
    CHECK(
        info.link_description ==
        "host memory (mpi transport): no GPU link is used; the run spans 2 hosts, so ops between them cross the network (MPI over TCP or whatever the MPI library chose)");
  }
}

TEST_CASE("hosts list their ranks in node-local order and their own links", "[topology]") {
  k25::TopologyInfo info;
  SECTION("host transport, ranks placed round-robin over two hosts") {
    // ranks 0..3 on a, b, a, b: node-local ranks 0, 0, 1, 1
    k25::label_hosts(info, {"a", "b", "a", "b"}, {0, 0, 1, 1});
    REQUIRE(info.hosts.size() == 2);
    CHECK(info.hosts[0].name == "a");
    CHECK(info.hosts[0].ranks == std::vector<int>{0, 2});
    CHECK(info.hosts[1].name == "b");
    CHECK(info.hosts[1].ranks == std::vector<int>{1, 3});
    CHECK(info.hosts[0].kind == "host");
    CHECK(info.hosts[1].link_description == "host memory (mpi transport): no GPU link is used");
  }
  SECTION("node-local order differs from world order") {
    k25::label_hosts(info, {"a", "a", "a"}, {2, 0, 1});
    REQUIRE(info.hosts.size() == 1);
    CHECK(info.hosts[0].ranks == std::vector<int>{1, 2, 0});
  }
  SECTION("GPUs: each host labelled by its own GPUs") {
    info.gpus = {nvlink_gpu(0, 4, 18), nvlink_gpu(1, 4, 18), pcie_gpu(2, 5, 16), pcie_gpu(3, 5, 16)};
    for (int r = 0; r < 4; ++r) info.gpus[static_cast<std::size_t>(r)].host = r < 2 ? "nv" : "pc";
    k25::label_hosts(info, {"nv", "nv", "pc", "pc"}, {0, 1, 0, 1});
    REQUIRE(info.hosts.size() == 2);
    CHECK(info.hosts[0].kind == "nvlink");
    CHECK(info.hosts[0].link_description.find("NVLink 4 x18") != std::string::npos);
    CHECK(info.hosts[1].kind == "pcie");
    CHECK(info.hosts[1].link_description.find("PCIe Gen5 x16") != std::string::npos);
  }
}

TEST_CASE("sysfs PCIe link of a GPU and of its upstream bridge", "[topology]") {
  TempDir dir;
  const fs::path bridge = dir.path / "devices" / "pci0000:00" / "0000:00:01.0";
  const fs::path device = bridge / "0000:3b:00.0";
  write(device / "current_link_speed", "2.5 GT/s PCIe");  // idle GPU, down-trained
  write(device / "current_link_width", "16");
  write(device / "max_link_speed", "32.0 GT/s PCIe");
  write(device / "max_link_width", "16");
  const fs::path bus = dir.path / "bus";
  fs::create_directories(bus);
  fs::create_directory_symlink(device, bus / "0000:3b:00.0");

  SECTION("the device alone") {
    const auto link = k25::read_pcie_link("0000:3B:00.0", bus);
    REQUIRE(link);
    CHECK(link->gen == 1);
    CHECK(link->width == 16);
    CHECK(link->gen_max == 5);
    CHECK(link->width_max == 16);
  }
  SECTION("a slower bridge lowers the maximum") {
    write(bridge / "max_link_speed", "16.0 GT/s PCIe");
    write(bridge / "max_link_width", "8");
    const auto link = k25::read_pcie_link("0000:3b:00.0", bus);
    REQUIRE(link);
    CHECK(link->gen_max == 4);
    CHECK(link->width_max == 8);
  }
  SECTION("a missing device") {
    CHECK_FALSE(k25::read_pcie_link("0000:99:00.0", bus));
  }
  SECTION("driver version file") {
    write(dir.path / "module" / "version", "580.159.04");
    CHECK(k25::read_driver_version(dir.path / "module" / "version") == "580.159.04");
    CHECK(k25::read_driver_version(dir.path / "nothing") == "");
  }
}
