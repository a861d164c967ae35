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
// bytes).
cudaError_t fill_allreduce_input(void* buffer, std::uint64_t elements, ElementType type, int rank,
                                 cudaStream_t stream);

// Adds to *wrong_count (device memory, one unsigned long long) the number of elements i of the reduced
// `buffer` that differ from allreduce_expected(ranks, first_index + i) (first_index: where a ReduceScatter's
// part starts in the whole sum; 0 for an AllReduce). NaN counts as wrong. *wrong_count is not reset here.
cudaError_t count_allreduce_wrong(const void* buffer, std::uint64_t elements, std::uint64_t first_index,
                                  ElementType type, int ranks, unsigned long long* wrong_count,
                                  cudaStream_t stream);

// All-to-All block that rank `src` sends to rank `dst`: byte j = (src x 31 + dst x 7 + j) mod 256, j in [0,
// bytes).
cudaError_t fill_alltoall_block(std::uint8_t* block, std::uint64_t bytes, int src, int dst,
                                cudaStream_t stream);

// Adds to *wrong_count the number of bytes of `block` (received by `dst` from `src`) that differ from the
// pattern.
cudaError_t count_alltoall_block_wrong(const std::uint8_t* block, std::uint64_t bytes, int src, int dst,
                                       unsigned long long* wrong_count, cudaStream_t stream);

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
