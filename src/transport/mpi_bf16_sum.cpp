// bf16 addition as an MPI user-defined reduction on 16-bit words.
#include "transport/mpi_bf16_sum.hpp"

#include <cstdint>

#include "common/error.hpp"
#include "transport/check_pattern.hpp"

namespace k25 {
namespace {

void bf16_sum(void* in, void* inout, int* length, MPI_Datatype*) {
  const auto* a = static_cast<const std::uint16_t*>(in);
  auto* b = static_cast<std::uint16_t*>(inout);
  for (int i = 0; i < *length; ++i)
    b[i] = check::float_to_bf16(check::bf16_to_float(a[i]) + check::bf16_to_float(b[i]));
}

}  // namespace

Bf16SumOp::Bf16SumOp() {
  K25_MPI_CHECK(MPI_Op_create(&bf16_sum, 1, &op_));
}

Bf16SumOp::~Bf16SumOp() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (op_ != MPI_OP_NULL && !finalized) MPI_Op_free(&op_);
}

}  // namespace k25
