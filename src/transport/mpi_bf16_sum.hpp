// The MPI reduction operation that sums bf16 values stored in 16-bit words (MPI has no bf16 type).
#pragma once

#include <mpi.h>

#include <cstdint>

namespace k25 {

// Owns an MPI_Op created with MPI_Op_create for bf16 addition (commutative; each add rounds to nearest even,
// as a GPU bf16 reduction does). Use with MPI_UINT16_T.
class Bf16SumOp {
 public:
  Bf16SumOp();
  Bf16SumOp(const Bf16SumOp&) = delete;
  Bf16SumOp& operator=(const Bf16SumOp&) = delete;
  ~Bf16SumOp();
  MPI_Op get() const { return op_; }

 private:
  MPI_Op op_ = MPI_OP_NULL;
};

// The reduction itself, for tests: one sum, and inout[i] = in[i] + inout[i] over `count` elements (what MPI
// calls).
std::uint16_t bf16_add(std::uint16_t a, std::uint16_t b);
void bf16_add_arrays(const std::uint16_t* in, std::uint16_t* inout, int count);

}  // namespace k25
