// The NCCL backend table on real MPI ranks: make_transport and the topology probe take what the backend they
// are given says (the absent one of a build without CUDA, or a scripted one standing in for k25nccl), the
// first rank's problem decides for all, and this executable links k25core alone. Run under mpirun -np 2;
// every rank runs every test case in the same order (they are collective).
#include <mpi.h>
#include <catch2/catch.hpp>

#include "../unit/catch_session.hpp"

#include <string>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/rank_context.hpp"
#include "config/run_config.hpp"
#include "topology/topology_probe.hpp"
#include "transport/make_transport.hpp"
#include "transport/nccl_backend.hpp"

namespace {

using k25::Backend;

k25::RunConfig config_with(Backend backend) {
  k25::RunConfig config;
  config.transport.backend = backend;
  return config;
}

// A backend that was built, puts rank r on device 10 + r, and whose transport constructor says what it got.
k25::DevicePlacement device_by_rank(const k25::RankContext& context, bool) {
  return {10 + context.rank(), ""};
}
// Rank 1 has no GPU of its own; the others do.
k25::DevicePlacement rank_one_without_gpu(const k25::RankContext& context, bool) {
  if (context.rank() == 1) return {-1, "host h1 has 1 GPU for 2 ranks"};
  return {context.rank(), ""};
}
std::unique_ptr<k25::Transport> say_device(const k25::TransportOptions&, const k25::RankContext& context,
                                           int device) {
  throw k25::RuntimeFault(
      fmt::format("scripted nccl transport on rank {}, device {}", context.rank(), device));
}
// A GPU the CUDA runtime would describe, named after the rank.
k25::LocalGpu named_gpu(const k25::RankContext& context, int device) {
  k25::LocalGpu gpu;
  gpu.present = true;
  gpu.cuda_index = device;
  gpu.bus_id = fmt::format("0000:f{}:00.0", context.rank());
  gpu.name = fmt::format("Scripted GPU {}", context.rank());
  gpu.visible_bus_ids = {gpu.bus_id};
  gpu.peer_access = {1};
  gpu.nccl_version = "9.8.7";
  return gpu;
}

// What a call raised: a k25 error's exit code and message (without the rank what() adds), or nothing.
struct Raised {
  bool raised = false;
  k25::ExitCode code = k25::ExitCode::ok;
  std::string message;
};
template <typename Call>
Raised raised_by(Call&& call) {
  try {
    call();
  } catch (const k25::Error& e) {
    return {true, e.code(), e.message()};
  }
  return {};
}

const k25::NcclBackend kPlacesEveryRank{true, device_by_rank, say_device, named_gpu};
const k25::NcclBackend kRankOneWithoutGpu{true, rank_one_without_gpu, say_device, named_gpu};

}  // namespace

TEST_CASE("absent backend: auto takes mpi and says why, --backend nccl is a usage error", "[backend]") {
  const k25::RankContext context(30.0);
  const k25::NcclBackend& absent = k25::absent_nccl_backend();
  CHECK_FALSE(absent.built);
  CHECK(absent.choose_device(context, false).device == -1);
  CHECK_FALSE(absent.read_local_gpu(context, 0).present);

  const k25::ChosenTransport chosen = k25::make_transport(config_with(Backend::automatic), context, absent);
  CHECK(chosen.transport->name() == "mpi");
  CHECK(chosen.reason == "mpi: auto, and the NCCL transport was not built");
  const Raised nccl = raised_by([&] { k25::make_transport(config_with(Backend::nccl), context, absent); });
  CHECK(nccl.code == k25::ExitCode::bad_usage);
  CHECK(nccl.message ==
        "--backend nccl: this k25comm was built without CUDA/NCCL (rebuild where both are found)");
}

TEST_CASE("a built backend: its device choice reaches its constructor", "[backend]") {
  const k25::RankContext context(30.0);
  for (const Backend backend : {Backend::automatic, Backend::nccl}) {
    const Raised made =
        raised_by([&] { k25::make_transport(config_with(backend), context, kPlacesEveryRank); });
    CHECK(made.code == k25::ExitCode::runtime_fault);
    CHECK(made.message ==
          fmt::format("scripted nccl transport on rank {}, device {}", context.rank(), 10 + context.rank()));
  }
  // --backend mpi never asks the backend.
  CHECK(k25::make_transport(config_with(Backend::mpi), context, kPlacesEveryRank).transport->name() == "mpi");
}

TEST_CASE("a built backend: one rank's problem decides for every rank", "[backend]") {
  const k25::RankContext context(30.0);
  const k25::ChosenTransport chosen =
      k25::make_transport(config_with(Backend::automatic), context, kRankOneWithoutGpu);
  CHECK(chosen.transport->name() == "mpi");
  CHECK(chosen.reason == "mpi: auto, and host h1 has 1 GPU for 2 ranks");
  const Raised nccl =
      raised_by([&] { k25::make_transport(config_with(Backend::nccl), context, kRankOneWithoutGpu); });
  CHECK(nccl.code == k25::ExitCode::bad_usage);
  CHECK(nccl.message == "--backend nccl: host h1 has 1 GPU for 2 ranks; or run with --backend mpi");
}

TEST_CASE("the topology probe reads each rank's GPU through the backend", "[backend]") {
  const k25::RankContext context(30.0);
  const k25::TopologyInfo topology = k25::probe_topology(context, 0, kPlacesEveryRank);
  CHECK(topology.nccl_version == "9.8.7");
  if (context.is_coordinator()) {
    REQUIRE(topology.gpus.size() == static_cast<std::size_t>(context.size()));
    for (int r = 0; r < context.size(); ++r) {
      CHECK(topology.gpus[static_cast<std::size_t>(r)].rank == r);
      CHECK(topology.gpus[static_cast<std::size_t>(r)].name == fmt::format("Scripted GPU {}", r));
      CHECK(topology.gpus[static_cast<std::size_t>(r)].bus_id == fmt::format("0000:f{}:00.0", r));
    }
  }
  // Without a device (the mpi transport) no GPU is read at all.
  CHECK(k25::probe_topology(context, -1, kPlacesEveryRank).gpus.empty());
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int failed = run_catch_session(argc, argv);
  MPI_Finalize();
  return failed == 0 ? 0 : 1;
}
