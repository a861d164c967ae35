// Exactly predictable data for the correctness pass, shared by the host transport and the CUDA kernels.
// AllReduce: element i on rank r holds 1 + (r + i) % 2, so every partial sum is an integer <= 2 x ranks and
// exact in bf16 (8 significant bits) up to 128 ranks, whatever order the reduction takes.
// ReduceScatter: the same inputs over rank x count elements; rank r's result is elements [r x count, (r + 1)
// x count) of the AllReduce's. All-to-All: byte j of the block rank src sends to rank dst is (src x 31 + dst
// x 7 + j) mod 256. AllGather: byte j of rank src's part is the All-to-All byte of src to rank 0.
// The AllReduce burst's check (every op of a burst, consecutive over the same buffers): op k's input is the
// AllReduce input plus 2 x (k % 3), so that the sums of two consecutive ops (and of ops two apart) differ in
// every element, by 2 x ranks, whatever the rank count, and an op that reads the next op's data (a missing
// end barrier) is caught; its largest sum, 6 x ranks (+ 2 with the epilogue), is exact in bf16 up to 42
// ranks, beyond which every op takes the plain input. The residual add + RMSNorm epilogue: residual element
// (row, j) = j % 3 and weight j = 1 + (j % 4) / 4, exact in bf16, so that the sum plus the residual stays an
// exact integer.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define K25_HOST_DEVICE __host__ __device__
#else
#define K25_HOST_DEVICE
#endif

namespace k25::check {

K25_HOST_DEVICE inline int allreduce_input(int rank, std::uint64_t index) {
  return 1 + static_cast<int>((static_cast<std::uint64_t>(rank) + index) % 2);
}

K25_HOST_DEVICE inline int allreduce_expected(int ranks, std::uint64_t index) {
  // ranks with (r + index) odd contribute 2, the others 1
  const int odd_ranks = (index % 2 == 0) ? ranks / 2 : (ranks + 1) / 2;
  return ranks + odd_ranks;
}

K25_HOST_DEVICE inline std::uint8_t alltoall_byte(int src, int dst, std::uint64_t offset) {
  return static_cast<std::uint8_t>(
      (static_cast<std::uint64_t>(src) * 31u + static_cast<std::uint64_t>(dst) * 7u + offset) & 0xFFu);
}

K25_HOST_DEVICE inline std::uint8_t allgather_byte(int src, std::uint64_t offset) {
  return alltoall_byte(src, 0, offset);
}

// What op `op` of the burst check adds to every rank's input: 2 x (op % 3), or nothing above 42 ranks.
K25_HOST_DEVICE inline int burst_input_shift(int ranks, std::uint64_t op) {
  return ranks <= 42 ? 2 * static_cast<int>(op % 3) : 0;
}

K25_HOST_DEVICE inline int allreduce_burst_input(int rank, int ranks, std::uint64_t index, std::uint64_t op) {
  return allreduce_input(rank, index) + burst_input_shift(ranks, op);
}

K25_HOST_DEVICE inline int allreduce_burst_expected(int ranks, std::uint64_t index, std::uint64_t op) {
  return allreduce_expected(ranks, index) + ranks * burst_input_shift(ranks, op);
}

K25_HOST_DEVICE inline int epilogue_residual(std::uint64_t column) {
  return static_cast<int>(column % 3);
}

K25_HOST_DEVICE inline float epilogue_weight(std::uint64_t column) {
  return 1.0f + static_cast<float>(column % 4) * 0.25f;
}

// The RMSNorm's epsilon (DeepSeek-V3's and Kimi-K2's rms_norm_eps).
constexpr float kEpilogueEps = 1e-6f;

// bf16 <-> float, round to nearest even (NaN kept quiet).
K25_HOST_DEVICE inline float bf16_to_float(std::uint16_t bits) {
  const std::uint32_t word = static_cast<std::uint32_t>(bits) << 16;
  float value;
  memcpy(&value, &word, sizeof value);
  return value;
}

K25_HOST_DEVICE inline std::uint16_t float_to_bf16(float value) {
  std::uint32_t word;
  memcpy(&word, &value, sizeof word);
  if ((word & 0x7F800000u) == 0x7F800000u && (word & 0x007FFFFFu) != 0)
    return static_cast<std::uint16_t>((word >> 16) | 0x40u);
  const std::uint32_t rounding = 0x7FFFu + ((word >> 16) & 1u);
  return static_cast<std::uint16_t>((word + rounding) >> 16);
}

}  // namespace k25::check
