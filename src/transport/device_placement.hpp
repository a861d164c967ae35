// Which visible CUDA device a rank drives, and when two ranks of a host would share one: the rules alone, no
// CUDA and no MPI, so that they are unit-tested on any machine.
#pragma once

#include <string>
#include <vector>

namespace k25 {

struct DevicePlacement {
  int device = -1;  // index among this process's visible CUDA devices; -1 with a problem
  std::string
      problem;  // why this rank cannot drive a GPU of its own, a sentence without prefix; empty if it can
};

// The rules, in order:
//   no visible device                     -> problem
//   emulate_ranks (test mode)             -> device local_rank % visible (ranks may share a GPU)
//   exactly one visible device            -> device 0: the scheduler gave this rank its own GPU
//                                            (Slurm --gpus-per-task=1, CUDA_VISIBLE_DEVICES per rank); that
//                                            no other rank of the host drives the same GPU is checked after,
//                                            by bus id (shared_gpu_problem)
//   at least as many devices as local ranks -> device local_rank
//   otherwise                             -> problem (more ranks than GPUs)
DevicePlacement place_rank_on_device(int local_rank, int local_size, int visible_devices, bool emulate_ranks,
                                     const std::string& host);

// bus_ids[local rank] = PCI bus id of the GPU that rank would drive. Returns the problem when two ranks of
// the host would drive the same GPU (NCCL refuses two ranks of one communicator on one GPU), else empty.
// Empty ids (unknown) are never counted as shared.
std::string shared_gpu_problem(const std::vector<std::string>& bus_ids, const std::string& host);

// What --backend nccl says when a placement problem refuses it: "--backend nccl: PROBLEM; or run with
// --backend mpi".
std::string nccl_refusal(const std::string& problem);

}  // namespace k25
