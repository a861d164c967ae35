// Plain host API of k25comm's CUDA kernels: raw device pointers and a cudaStream_t, nothing else.
// Every function only enqueues work on `stream` and returns the launch status (cudaGetLastError); none
// synchronizes. Layouts are given byte by byte so that the host transport and the tests can build the same
// buffers.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace k25::kernels {

// Element type of an AllReduce buffer or of a combine row.
enum class ElementType : int { bf16 = 0, fp32 = 1 };

// ---- exact-check data of the correctness pass (formulas in src/transport/check_pattern.hpp)
// -------------------

// AllReduce input on rank `rank`: element i = 1 + (rank + i) % 2, stored as `type` (bf16: 2 bytes, fp32: 4
// bytes); of op `op` of the burst check among `ranks` ranks, allreduce_burst_input (check_pattern.hpp).
cudaError_t fill_allreduce_input(void* buffer, std::uint64_t elements, ElementType type, int rank,
                                 cudaStream_t stream, std::uint64_t op = 0, int ranks = 1);

// Adds to *wrong_count (device memory, one unsigned long long) the number of elements i of the reduced
// `buffer` that differ from allreduce_burst_expected(ranks, first_index + i, op) (first_index: where a
// ReduceScatter's part starts in the whole sum; 0 for an AllReduce; op: of the burst check, 0 otherwise). NaN
// counts as wrong. *wrong_count is not reset here.
cudaError_t count_allreduce_wrong(const void* buffer, std::uint64_t elements, std::uint64_t first_index,
                                  ElementType type, int ranks, unsigned long long* wrong_count,
                                  cudaStream_t stream, std::uint64_t op = 0);

// All-to-All block that rank `src` sends to rank `dst`: byte j = (src x 31 + dst x 7 + j) mod 256, j in [0,
// bytes).
cudaError_t fill_alltoall_block(std::uint8_t* block, std::uint64_t bytes, int src, int dst,
                                cudaStream_t stream);

// Adds to *wrong_count the number of bytes of `block` (received by `dst` from `src`) that differ from the
// pattern.
cudaError_t count_alltoall_block_wrong(const std::uint8_t* block, std::uint64_t bytes, int src, int dst,
                                       unsigned long long* wrong_count, cudaStream_t stream);

// ---- the AllReduce's residual add + RMSNorm epilogue (src/transport/add_rmsnorm.hpp)
// -----------------------------------------------------------------------------------------------------------

// rows x row_elements of `type` in `sum` (the AllReduce's result): sum += residual (in place), norm_out =
// sum / sqrt(mean(sum^2) + eps) x weight (weight: row_elements), in fp32. One block per row.
cudaError_t add_rmsnorm(void* sum, const void* residual, const void* weight, void* norm_out,
                        std::uint64_t rows, std::uint64_t row_elements, ElementType type,
                        cudaStream_t stream);

// The epilogue's check data: residual (rows x row_elements) element j = j % 3, weight j = 1 + (j % 4) / 4.
cudaError_t fill_epilogue_inputs(void* residual, void* weight, std::uint64_t rows, std::uint64_t row_elements,
                                 ElementType type, cudaStream_t stream);

// Adds to *wrong_count the elements of op `op` of the burst check that are wrong: result (the sum plus the
// residual) must equal allreduce_burst_expected + j % 3 exactly, norm_out must be within 2^-7 x |reference|
// of `reference` (device memory, 2 x row_elements floats: the CPU's normed row of each parity for this op,
// add_rmsnorm_references).
cudaError_t count_epilogue_wrong(const void* result, const void* norm_out, std::uint64_t rows,
                                 std::uint64_t row_elements, ElementType type, int ranks, std::uint64_t op,
                                 const float* reference, unsigned long long* wrong_count,
                                 cudaStream_t stream);

// ---- peer all-reduce (src/transport/peer_allreduce.hpp: the layout; docs/allreduce-backends.md: the design)
// -----------------------------------------------------------------------------------------------------------

enum class PeerAlgorithm : int { oneshot_push = 0, twoshot = 1, oneshot_pull = 2 };

inline constexpr int kPeerMaxRanks = 8;
inline constexpr int kPeerBlocks = 32;  // the grid: block b of a rank meets block b of every peer
inline constexpr int kPeerThreads = 256;

// One AllReduce through the ranks' exposed buffers. Each buffer (src/transport/peer_allreduce.hpp's layout):
//   flags at flags_offset: [block][barrier 0..1][from rank 0..7], one uint32 epoch per 64 bytes, stored by
//   the rank `from` (st.release.sys), loaded by the owner (ld.acquire.sys); slots at slots_offset, slot_bytes
//   each: oneshot-push one per rank (rank q's input), twoshot one per rank (rank q's share of this rank's
//   part), oneshot-pull one (this rank's own input, read by the peers); gather at gather_offset (twoshot):
//   the reduced op, then with the epilogue its normed output.
// Every wait is bounded by bound_ns of the global timer: a rank that does not arrive makes the kernel give up
// (status[0] = 1, status[1 + r] = 1 for each rank r missing, status[9] = op_tag), and every later launch
// returns at once while status[0] is set. status: host-mapped, 10 unsigned; op_tag: the op of its burst.
struct PeerAllreduceArgs {
  PeerAlgorithm algorithm = PeerAlgorithm::oneshot_push;
  ElementType type = ElementType::bf16;
  int rank = 0, ranks = 1;
  const void* input = nullptr;
  void* output = nullptr;
  std::uint64_t count = 0;  // elements; count x element bytes is a multiple of 16
  std::uint8_t* buffers[kPeerMaxRanks] = {};
  std::uint64_t flags_offset = 0, slots_offset = 0, slot_bytes = 0, gather_offset = 0, gather_bytes = 0;
  std::uint32_t* epochs = nullptr;  // this rank's op counter per block (device memory, kPeerBlocks)
  std::uint64_t bound_ns = 0;
  volatile unsigned* status = nullptr;
  unsigned op_tag = 0;               // which op of its burst, for the message when a kernel gives up
  bool leave_out_own_input = false;  // test only (--inject-wrong)
  // The fused residual add + RMSNorm (rows > 0): rows of count / rows elements, a multiple of 16 bytes.
  std::uint64_t rows = 0;
  const void* residual = nullptr;
  const void* weight = nullptr;
  void* norm_out = nullptr;
};
cudaError_t peer_allreduce(const PeerAllreduceArgs& args, cudaStream_t stream);

// ---- MoE permute: dispatch pack and combine unpack
// ---------------------------------------------------------------

// Dispatch pack: gathers token rows into the All-to-All send buffer, grouped by destination rank.
//   token_rows: [tokens][row_bytes], the rows this rank holds (activation + scales + header, moved as bytes)
//   row_of_copy: [copies] int32, the token row each copy takes; copies are ordered by destination rank, so
//                copy i lands at send + i x row_bytes (destination d's block starts at its send displacement)
//   send: [copies][row_bytes]
// Any row_bytes works; rows that are multiples of 16 bytes on 16-byte aligned buffers move as 16-byte
// vectors.
cudaError_t moe_dispatch_pack(const std::uint8_t* token_rows, const std::int32_t* row_of_copy,
                              std::uint64_t copies, std::uint64_t row_bytes, std::uint8_t* send,
                              cudaStream_t stream);

// Combine unpack: scatters the copies that came back to their token rows and sums the copies of each token.
//   recv: [copies][elements] of `type`, ordered by source rank as received
//   copy_offsets: [tokens + 1] int32, CSR offsets into copy_index; copy_index: the copies of token t are
//                 copy_index[copy_offsets[t] .. copy_offsets[t + 1])
//   token_rows: [tokens][elements] of `type`; row t = sum of its copies (accumulated in fp32), 0 for a token
//               without copies
cudaError_t moe_combine_unpack(const void* recv, const std::int32_t* copy_offsets,
                               const std::int32_t* copy_index, std::uint64_t tokens, std::uint64_t elements,
                               ElementType type, void* token_rows, cudaStream_t stream);

// Keeps the stream busy for at least `ns` nanoseconds of the GPU's global timer (at most one timer tick
// more): one thread spinning, standing in for the compute between two collectives of a decode step (the
// decode timing mode's gaps).
cudaError_t busy_for(std::uint64_t ns, cudaStream_t stream);

// ---- GPU-to-GPU copies (k25comm doctor's measured P2P matrix)
// ------------------------------------------------

// Copies `bytes` bytes from `src` to `dst` with a grid-stride kernel on `stream`'s device: 16-byte vector
// loads and stores where both pointers are 16-byte aligned, bytes for the rest. Either pointer may be a peer
// GPU's memory mapped with cudaDeviceEnablePeerAccess: a local `src` and a peer `dst` is a push (remote
// stores), a peer `src` and a local `dst` a pull (remote loads).
cudaError_t copy_bytes(const void* src, void* dst, std::uint64_t bytes, cudaStream_t stream);

// ---- test-only
// -------------------------------------------------------------------------------------------------

// Spins until *release_flag (host-mapped memory, device pointer) becomes non-zero or `max_ns` nanoseconds of
// the GPU's global timer have passed, whichever comes first. Used by --inject-hang to make one op wait
// "forever"; the bound keeps a GPU from staying busy if its process is killed before it releases the flag.
cudaError_t spin_until_released(const volatile int* release_flag, std::uint64_t max_ns, cudaStream_t stream);

}  // namespace k25::kernels
