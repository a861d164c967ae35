// Unit tests of the rank-to-GPU rules (no GPU needed): node-local rank, one GPU per rank given by a
// scheduler, emulated ranks, and the refusals.
#include <catch2/catch.hpp>

#include "transport/device_placement.hpp"

using k25::nccl_refusal;
using k25::place_rank_on_device;
using k25::shared_gpu_problem;

TEST_CASE("a rank drives the GPU at its node-local rank when the host has one per rank") {
  for (int rank = 0; rank < 8; ++rank) {
    const auto placed = place_rank_on_device(rank, 8, 8, false, "node1");
    CHECK(placed.problem.empty());
    CHECK(placed.device == rank);
  }
  CHECK(place_rank_on_device(3, 4, 8, false, "node1").device == 3);
}

TEST_CASE("a rank that sees exactly one GPU drives it, whatever its local rank (Slurm --gpus-per-task=1)") {
  const auto placed = place_rank_on_device(5, 8, 1, false, "node1");
  CHECK(placed.problem.empty());
  CHECK(placed.device == 0);
}

TEST_CASE("more ranks than GPUs, or none, are refused with the host and the counts") {
  const auto too_many = place_rank_on_device(2, 3, 2, false, "node7");
  CHECK(too_many.device == -1);
  CHECK(too_many.problem.find("host node7 runs 3 ranks but has 2 visible CUDA devices") != std::string::npos);
  const auto none = place_rank_on_device(0, 1, 0, false, "node7");
  CHECK(none.device == -1);
  CHECK(none.problem.find("host node7 has no visible CUDA device") != std::string::npos);
  CHECK(place_rank_on_device(0, 1, 0, true, "node7").device == -1);  // emulation needs a GPU too
}

TEST_CASE("emulated ranks spread over the visible GPUs, several per GPU") {
  CHECK(place_rank_on_device(0, 8, 1, true, "h").device == 0);
  CHECK(place_rank_on_device(7, 8, 1, true, "h").device == 0);
  CHECK(place_rank_on_device(5, 8, 2, true, "h").device == 1);
  CHECK(place_rank_on_device(5, 8, 2, true, "h").problem.empty());
}

TEST_CASE("two ranks of a host on one GPU are found by bus id") {
  CHECK(shared_gpu_problem({"0000:01:00.0", "0000:02:00.0"}, "h").empty());
  CHECK(shared_gpu_problem({"0000:01:00.0", "", ""}, "h").empty());  // unknown ids are not counted
  const std::string problem = shared_gpu_problem({"0000:01:00.0", "0000:02:00.0", "0000:01:00.0"}, "node3");
  // The whole refusal as --backend nccl prints it: one prefix, one way out.
  CHECK(
      nccl_refusal(problem) ==
      "--backend nccl: host node3 runs 3 ranks but local ranks 0 and 2 would both drive GPU 0000:01:00.0; "
      "NCCL needs one GPU per rank (two ranks on one GPU are refused): give each rank its own device (CUDA_VISIBLE_DEVICES per rank, Slurm --gpus-per-task=1), or start fewer ranks; or run with --backend mpi");
}

TEST_CASE("more ranks than GPUs reads as one refusal") {
  CHECK(
      nccl_refusal(place_rank_on_device(2, 3, 2, false, "node7").problem) ==
      "--backend nccl: host node7 runs 3 ranks but has 2 visible CUDA devices; NCCL needs one GPU per rank (two ranks on one GPU are refused): start at most 2 ranks per host; or run with --backend mpi");
}
