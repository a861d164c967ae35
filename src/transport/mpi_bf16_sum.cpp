// bf16 addition as an MPI user-defined reduction on 16-bit words, written so that the compiler vectorizes it.
#include "transport/mpi_bf16_sum.hpp"

#include <cstdint>
#include <cstring>

#include "common/error.hpp"

namespace k25 {
namespace {

// One bf16 sum, branch-free: widen both to fp32 (a shift), add, round to nearest even, and keep NaN quiet (a
// select, not a branch, so that the loop vectorizes). Same results as check::float_to_bf16 of the fp32 sum.
inline std::uint16_t add_bf16(std::uint16_t a, std::uint16_t b) {
  const std::uint32_t a_bits = static_cast<std::uint32_t>(a) << 16;
  const std::uint32_t b_bits = static_cast<std::uint32_t>(b) << 16;
  float a_value, b_value;
  std::memcpy(&a_value, &a_bits, 4);
  std::memcpy(&b_value, &b_bits, 4);
  const float sum = a_value + b_value;
  std::uint32_t word;
  std::memcpy(&word, &sum, 4);
  const std::uint32_t rounded = (word + 0x7FFFu + ((word >> 16) & 1u)) >> 16;
  const std::uint32_t quiet_nan = (word >> 16) | 0x40u;
  const bool is_nan = (word & 0x7FFFFFFFu) > 0x7F800000u;
  return static_cast<std::uint16_t>(is_nan ? quiet_nan : rounded);
}

void bf16_sum(void* in, void* inout, int* length, MPI_Datatype*) {
  bf16_add_arrays(static_cast<const std::uint16_t*>(in), static_cast<std::uint16_t*>(inout), *length);
}

}  // namespace

std::uint16_t bf16_add(std::uint16_t a, std::uint16_t b) {
  return add_bf16(a, b);
}

void bf16_add_arrays(const std::uint16_t* __restrict in, std::uint16_t* __restrict inout, int count) {
  for (int i = 0; i < count; ++i) inout[i] = add_bf16(in[i], inout[i]);
}

Bf16SumOp::Bf16SumOp() {
  K25_MPI_CHECK(MPI_Op_create(&bf16_sum, 1, &op_));
}

Bf16SumOp::~Bf16SumOp() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (op_ != MPI_OP_NULL && !finalized) MPI_Op_free(&op_);
}

}  // namespace k25
