// GPU test of the topology stage: the probe reads this rank's GPU through NVML (dlopen) and prints the
// record. Skips (exit 77) without a CUDA device. Fails where NVML was not used or the PCIe link is unknown.
#include <mpi.h>

#include <cstdio>

#include "common/rank_context.hpp"
#include "gpu_skip.hpp"
#include "topology/topology_probe.hpp"
#include "transport/nccl/built_nccl_backend.hpp"

int main(int argc, char** argv) {
  k25::gpu_test::skip_without_device("topology probe");
  MPI_Init(&argc, &argv);
  int rc = 0;
  {
    const k25::RankContext context(60.0);
    const k25::TopologyInfo info = k25::probe_topology(context, 0, k25::nccl::nccl_backend());
    if (context.is_coordinator()) {
      std::printf("%s\n", nlohmann::json(info).dump(2).c_str());
      const auto& gpu = info.gpus.at(0);
      const auto fail = [&](const char* what) {
        std::printf("FAILED: %s\n", what);
        rc = 1;
      };
      if (gpu.source.rfind("nvml", 0) != 0) fail("NVML was not used (source is not nvml)");
      if (gpu.name.empty()) fail("no GPU name");
      if (gpu.bus_id.empty()) fail("no bus id");
      if (gpu.pcie_gen_max <= 0 || gpu.pcie_width_max <= 0) fail("PCIe maximum link unknown");
      if (gpu.driver_version.empty()) fail("no driver version");
      if (info.kind != "pcie" && info.kind != "nvlink") fail("a one-GPU run is labelled pcie or nvlink");
      if (!info.link_limit_gbps) fail("no link limit");
      if (info.nccl_version.empty()) fail("no NCCL version");
      if (info.peer_access.size() != 1 || info.peer_access[0].size() != 1 || info.peer_access[0][0] != 1)
        fail("peer matrix of one GPU is [[1]]");
      std::printf("%s\n", rc == 0 ? "PASSED" : "FAILED");
    }
  }
  MPI_Finalize();
  return rc;
}
