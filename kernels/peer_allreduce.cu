// The peer all-reduce kernels: one-shot push, two-shot (reduce-scatter + all-gather) and one-shot pull
// through buffers every rank maps of every other (NCCL window load/store pointers or CUDA IPC), with
// per-block epoch flags and two barriers per op, as vLLM's custom all-reduce and NCCL's device-API examples
// meet their peers; the residual add + RMSNorm fused into the reduction. docs/allreduce-backends.md gives the
// design and limits.
#include <cstdint>

#include "../src/transport/check_pattern.hpp"
#include "element_vectors.cuh"
#include "global_timer.cuh"
#include "k25_kernels.h"

namespace k25::kernels {
namespace {

using detail::add_lanes;
using detail::block_sum;
using detail::pack_lanes;

constexpr std::uint64_t kFlagStride = 64;
constexpr int kBarriers = 2;

__device__ inline void store_release(std::uint32_t* address, std::uint32_t value) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(address), "r"(value) : "memory");
}

__device__ inline std::uint32_t load_acquire(const std::uint32_t* address) {
  std::uint32_t value;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(value) : "l"(address) : "memory");
  return value;
}

// Flag of (block, barrier) that rank `from` stores into `owner`'s buffer.
__device__ inline std::uint32_t* flag_of(const PeerAllreduceArgs& a, int owner, int barrier, int from) {
  return reinterpret_cast<std::uint32_t*>(
      a.buffers[owner] + a.flags_offset +
      ((static_cast<std::uint64_t>(blockIdx.x) * kBarriers + barrier) * kPeerMaxRanks + from) * kFlagStride);
}

__device__ inline uint4* vectors_at(std::uint8_t* base, std::uint64_t offset) {
  return reinterpret_cast<uint4*>(base + offset);
}

// What each block keeps while it runs one op.
struct BlockState {
  std::uint32_t epoch;
  std::uint64_t deadline;
  int gave_up;
  float scratch[32];
};

// Block b of this rank meets block b of every peer: each thread r < ranks stores the epoch into rank r's flag
// from this rank, then waits (bounded) until rank r's flag in this rank's buffer reached it. The stores
// before it (this block's pushes) are made visible to the peers first.
__device__ bool meet_peers(const PeerAllreduceArgs& a, BlockState& s, int barrier) {
  __syncthreads();
  const int peer = static_cast<int>(threadIdx.x);
  if (peer < a.ranks && !s.gave_up) {
    __threadfence_system();
    store_release(flag_of(a, peer, barrier, a.rank), s.epoch);
    const std::uint32_t* mine = flag_of(a, a.rank, barrier, peer);
    for (unsigned polls = 0; static_cast<std::int32_t>(load_acquire(mine) - s.epoch) < 0; ++polls) {
      if (global_timer_ns() > s.deadline) {
        a.status[1 + peer] = 1;
        a.status[9] = a.op_tag;
        a.status[0] = 1;
        s.gave_up = 1;
        break;
      }
      if ((polls & 1023u) == 1023u && a.status[0] != 0) {  // another block or rank's op gave up
        s.gave_up = 1;
        break;
      }
    }
  }
  __syncthreads();
  return !s.gave_up;
}

// The units (16-byte vectors) of part [first, first + count) of the op this block handles, in order: without
// the epilogue a grid stride over the part's vectors; with it (rows > 0) whole rows, row j of the part to
// block j % blocks. The same split on every rank, so block b's data is block b's business on every rank.
template <typename Visit>
__device__ void for_block_vectors(const PeerAllreduceArgs& a, std::uint64_t first, std::uint64_t count,
                                  std::uint64_t row_vectors, Visit&& visit) {
  if (a.rows == 0) {
    for (std::uint64_t w = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; w < count;
         w += static_cast<std::uint64_t>(gridDim.x) * blockDim.x)
      visit(first + w);
    return;
  }
  for (std::uint64_t row = blockIdx.x; row < count; row += gridDim.x)
    for (std::uint64_t x = threadIdx.x; x < row_vectors; x += blockDim.x)
      visit((first + row) * row_vectors + x);
}

// Sums vector v over `sources` (each a rank's copy of the same vectors, indexed from `base_vector`), this
// rank's left out under --inject-wrong. Reads bypass L1 (the data was written by other GPUs).
template <typename Lanes>
__device__ uint4 sum_vector(const PeerAllreduceArgs& a, uint4* const* sources, std::uint64_t v) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int q = 0; q < a.ranks; ++q)
    if (!(a.leave_out_own_input && q == a.rank)) add_lanes<Lanes>(acc, __ldcg(sources[q] + v));
  return pack_lanes<Lanes>(acc);
}

// Rows [first_row, first_row + rows) reduced from `sources` (vector v of the op at sources[q][v -
// source_base]) into out (residual added: the residual output) and norm_out (the normed row), one row at a
// time per block as for_block_vectors splits them. out and norm_out are indexed by the op's vector.
template <typename Lanes>
__device__ void reduce_rows_fused(const PeerAllreduceArgs& a, BlockState& s, uint4* const* sources,
                                  std::uint64_t source_base, std::uint64_t first_row, std::uint64_t rows,
                                  std::uint64_t row_vectors, uint4* out, uint4* norm_out) {
  const auto* residual = static_cast<const uint4*>(a.residual);
  const auto* weight = static_cast<const uint4*>(a.weight);
  const float row_elements = static_cast<float>(row_vectors * Lanes::lanes);
  for (std::uint64_t row = first_row + blockIdx.x; row < first_row + rows; row += gridDim.x) {
    float squares = 0;
    for (std::uint64_t x = threadIdx.x; x < row_vectors; x += blockDim.x) {
      const std::uint64_t v = row * row_vectors + x;
      float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (int q = 0; q < a.ranks; ++q)
        if (!(a.leave_out_own_input && q == a.rank))
          add_lanes<Lanes>(acc, __ldcg(sources[q] + (v - source_base)));
      add_lanes<Lanes>(acc, residual[v]);
      const uint4 stored = pack_lanes<Lanes>(acc);
      out[v] = stored;
      for (int i = 0; i < Lanes::lanes; ++i) squares += Lanes::get(stored, i) * Lanes::get(stored, i);
    }
    const float scale = rsqrtf(block_sum(squares, s.scratch) / row_elements + check::kEpilogueEps);
    for (std::uint64_t x = threadIdx.x; x < row_vectors; x += blockDim.x) {
      const std::uint64_t v = row * row_vectors + x;
      const uint4 x_values = out[v], w_values = weight[x];
      float normed[8];
      for (int i = 0; i < Lanes::lanes; ++i)
        normed[i] = Lanes::get(x_values, i) * scale * Lanes::get(w_values, i);
      norm_out[v] = pack_lanes<Lanes>(normed);
    }
    __syncthreads();  // block_sum's scratch is reused by the next row
  }
}

// One-shot's reduction: the whole op from `sources` (each a rank's copy) into the output, with the epilogue
// fused where there is one.
template <typename Lanes>
__device__ void reduce_whole_op(const PeerAllreduceArgs& a, BlockState& s, uint4* const* sources,
                                std::uint64_t vectors, std::uint64_t row_vectors) {
  auto* out = static_cast<uint4*>(a.output);
  if (a.rows > 0)
    reduce_rows_fused<Lanes>(a, s, sources, 0, 0, a.rows, row_vectors, out, static_cast<uint4*>(a.norm_out));
  else
    for_block_vectors(a, 0, vectors, row_vectors,
                      [&](std::uint64_t v) { out[v] = sum_vector<Lanes>(a, sources, v); });
}

// Push: this block's vectors of the input into slot `rank` of every rank; meet; reduce this rank's slots;
// meet again at the end, so that no rank's next op pushes into a slot a peer still reads (a one-stage kernel
// without it corrupts the next op's data).
template <typename Lanes>
__device__ void oneshot_push(const PeerAllreduceArgs& a, BlockState& s, std::uint64_t vectors,
                             std::uint64_t row_vectors) {
  const auto* input = static_cast<const uint4*>(a.input);
  const std::uint64_t units = a.rows > 0 ? a.rows : vectors;
  for_block_vectors(a, 0, units, row_vectors, [&](std::uint64_t v) {
    const uint4 value = input[v];
    for (int p = 0; p < a.ranks; ++p)
      vectors_at(a.buffers[p], a.slots_offset + static_cast<std::uint64_t>(a.rank) * a.slot_bytes)[v] = value;
  });
  if (!meet_peers(a, s, 0)) return;
  uint4* sources[kPeerMaxRanks];
  for (int q = 0; q < a.ranks; ++q)
    sources[q] = vectors_at(a.buffers[a.rank], a.slots_offset + static_cast<std::uint64_t>(q) * a.slot_bytes);
  reduce_whole_op<Lanes>(a, s, sources, vectors, row_vectors);
  meet_peers(a, s, 1);
}

// Pull: this block's vectors of the input into this rank's own slot; meet; read every rank's slot and reduce;
// meet at the end, so that no rank overwrites its slot while a peer still reads it.
template <typename Lanes>
__device__ void oneshot_pull(const PeerAllreduceArgs& a, BlockState& s, std::uint64_t vectors,
                             std::uint64_t row_vectors) {
  const auto* input = static_cast<const uint4*>(a.input);
  uint4* own = vectors_at(a.buffers[a.rank], a.slots_offset);
  const std::uint64_t units = a.rows > 0 ? a.rows : vectors;
  for_block_vectors(a, 0, units, row_vectors, [&](std::uint64_t v) { own[v] = input[v]; });
  if (!meet_peers(a, s, 0)) return;
  uint4* sources[kPeerMaxRanks];
  for (int q = 0; q < a.ranks; ++q) sources[q] = vectors_at(a.buffers[q], a.slots_offset);
  reduce_whole_op<Lanes>(a, s, sources, vectors, row_vectors);
  meet_peers(a, s, 1);
}

// Rank c's part of the op in two-shot: units (vectors, or rows with the epilogue) [first, first + count).
__device__ inline void part_of(int c, int ranks, std::uint64_t units, std::uint64_t& first,
                               std::uint64_t& count) {
  first = units * static_cast<std::uint64_t>(c) / static_cast<std::uint64_t>(ranks);
  count = units * static_cast<std::uint64_t>(c + 1) / static_cast<std::uint64_t>(ranks) - first;
}

// Reduce-scatter: this block's share of part c of the input into slot `rank` of rank c, for every c; meet;
// reduce this rank's part and push it into every rank's gather area; meet; copy the gathered op out. No end
// barrier (docs/allreduce-backends.md says why).
template <typename Lanes>
__device__ void twoshot(const PeerAllreduceArgs& a, BlockState& s, std::uint64_t vectors,
                        std::uint64_t row_vectors) {
  const auto* input = static_cast<const uint4*>(a.input);
  const std::uint64_t units = a.rows > 0 ? a.rows : vectors;
  const std::uint64_t unit_vectors = a.rows > 0 ? row_vectors : 1;
  for (int c = 0; c < a.ranks; ++c) {
    std::uint64_t first = 0, count = 0;
    part_of(c, a.ranks, units, first, count);
    uint4* slot =
        vectors_at(a.buffers[c], a.slots_offset + static_cast<std::uint64_t>(a.rank) * a.slot_bytes);
    const std::uint64_t base = first * unit_vectors;
    for_block_vectors(a, first, count, row_vectors, [&](std::uint64_t v) { slot[v - base] = input[v]; });
  }
  if (!meet_peers(a, s, 0)) return;
  std::uint64_t first = 0, count = 0;
  part_of(a.rank, a.ranks, units, first, count);
  const std::uint64_t base = first * unit_vectors;
  uint4* sources[kPeerMaxRanks];
  for (int q = 0; q < a.ranks; ++q)
    sources[q] = vectors_at(a.buffers[a.rank], a.slots_offset + static_cast<std::uint64_t>(q) * a.slot_bytes);
  uint4* own_gather = vectors_at(a.buffers[a.rank], a.gather_offset);
  uint4* own_norm = vectors_at(a.buffers[a.rank], a.gather_offset + a.gather_bytes);
  if (a.rows > 0) {
    reduce_rows_fused<Lanes>(a, s, sources, base, first, count, row_vectors, own_gather, own_norm);
    for_block_vectors(a, first, count, row_vectors, [&](std::uint64_t v) {
      for (int p = 0; p < a.ranks; ++p) {
        if (p == a.rank) continue;
        vectors_at(a.buffers[p], a.gather_offset)[v] = own_gather[v];
        vectors_at(a.buffers[p], a.gather_offset + a.gather_bytes)[v] = own_norm[v];
      }
    });
  } else {
    for_block_vectors(a, first, count, row_vectors, [&](std::uint64_t v) {
      const uint4 sum = sum_vector<Lanes>(a, sources, v - base);
      for (int p = 0; p < a.ranks; ++p) vectors_at(a.buffers[p], a.gather_offset)[v] = sum;
    });
  }
  if (!meet_peers(a, s, 1)) return;
  auto* out = static_cast<uint4*>(a.output);
  auto* norm_out = static_cast<uint4*>(a.norm_out);
  for (int c = 0; c < a.ranks; ++c) {
    std::uint64_t part_first = 0, part_count = 0;
    part_of(c, a.ranks, units, part_first, part_count);
    for_block_vectors(a, part_first, part_count, row_vectors, [&](std::uint64_t v) {
      out[v] = __ldcg(own_gather + v);
      if (a.rows > 0) norm_out[v] = __ldcg(own_norm + v);
    });
  }
}

template <typename Lanes>
__global__ void __launch_bounds__(kPeerThreads) peer_allreduce_kernel(PeerAllreduceArgs a) {
  __shared__ BlockState s;
  if (threadIdx.x == 0) {
    s.epoch = ++a.epochs[blockIdx.x];
    s.deadline = global_timer_ns() + a.bound_ns;
    s.gave_up = a.status[0] != 0 ? 1 : 0;
  }
  __syncthreads();
  if (s.gave_up) return;  // an earlier op gave up: the run is ending, nothing more is waited for
  const std::uint64_t vectors = a.count / Lanes::lanes;
  const std::uint64_t row_vectors = a.rows > 0 ? vectors / a.rows : 0;
  switch (a.algorithm) {
    case PeerAlgorithm::twoshot:
      twoshot<Lanes>(a, s, vectors, row_vectors);
      return;
    case PeerAlgorithm::oneshot_pull:
      oneshot_pull<Lanes>(a, s, vectors, row_vectors);
      return;
    case PeerAlgorithm::oneshot_push:
      oneshot_push<Lanes>(a, s, vectors, row_vectors);
      return;
  }
}

}  // namespace

cudaError_t peer_allreduce(const PeerAllreduceArgs& args, cudaStream_t stream) {
  if (args.ranks < 1 || args.ranks > kPeerMaxRanks) return cudaErrorInvalidValue;
  if (args.type == ElementType::bf16)
    peer_allreduce_kernel<detail::Bf16Lanes><<<kPeerBlocks, kPeerThreads, 0, stream>>>(args);
  else
    peer_allreduce_kernel<detail::Fp32Lanes><<<kPeerBlocks, kPeerThreads, 0, stream>>>(args);
  return cudaGetLastError();
}

}  // namespace k25::kernels
