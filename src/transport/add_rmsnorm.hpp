// The residual add + RMSNorm epilogue of the AllReduce (--allreduce-epilogue add-rmsnorm) on host memory: the
// computation (the host transport's separate step after MPI_Allreduce, its peer backends' fused one), the
// check data it runs on, its CPU reference and the bound the output is checked within. The GPU kernels
// compute the same (kernels/k25_kernels.h); their output is checked against this reference.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/vocabulary.hpp"

namespace k25 {

// Rows [first_row, first_row + rows) of `row_elements` elements of `dtype`: sum[r] += residual[r] (in place:
// the residual output, the next layer's input), norm_out[r] = sum[r] / sqrt(mean(sum[r]^2) + eps) x weight,
// accumulated in fp32 as the GPU kernels do.
void add_rmsnorm_rows(std::byte* sum, const std::byte* residual, const std::byte* weight, std::byte* norm_out,
                      std::size_t first_row, std::size_t rows, std::size_t row_elements, Dtype dtype);

// Fills `rows` residual rows and the weight row with check_pattern.hpp's epilogue data.
void fill_epilogue_inputs(std::byte* residual, std::byte* weight, std::size_t rows, std::size_t row_elements,
                          Dtype dtype);

// The normed output the CPU expects of a row of op `op` of the burst check whose sum element j is
// allreduce_burst_expected(ranks, parity + j, op), computed in double: row r has parity (r x row_elements)
// % 2.
std::vector<float> add_rmsnorm_reference(int ranks, std::size_t row_elements, int parity, std::uint64_t op);
// Every row the burst check can expect: index epilogue_reference_index(op, parity), op % 3 x 2 + parity.
using EpilogueReference = std::array<std::vector<float>, 6>;
EpilogueReference add_rmsnorm_references(int ranks, std::size_t row_elements);
inline std::size_t epilogue_reference_index(std::uint64_t op, std::size_t parity) {
  return static_cast<std::size_t>(op % 3) * 2 + parity;
}

// The bound the epilogue's output is checked within: |got - reference| <= 2^-7 x |reference|, two bf16 units
// in the last place (the output is rounded to bf16 once; the fp32 sums and the reciprocal square root of two
// implementations differ by far less than one unit, and the rounding may land on either neighbour).
inline constexpr float kEpilogueRelativeBound = 1.0f / 128.0f;
bool within_epilogue_bound(float got, float reference);

// Wrong elements of op `op` of the burst check on host memory: the result (the sum, plus the residual
// with the epilogue) must equal the exact expected value; with the epilogue (rows > 0) the normed output must
// be within the bound of the reference.
std::uint64_t count_allreduce_wrong_host(const std::byte* result, std::size_t count, Dtype dtype, int ranks,
                                         std::uint64_t op);
std::uint64_t count_epilogue_wrong_host(const std::byte* result, const std::byte* norm_out, std::size_t rows,
                                        std::size_t row_elements, Dtype dtype, int ranks, std::uint64_t op,
                                        const EpilogueReference& reference);

}  // namespace k25
