// The residual add + RMSNorm epilogue on host memory, its check data, reference and bound.
#include "transport/add_rmsnorm.hpp"

#include <cmath>

#include "transport/check_pattern.hpp"
#include "transport/host_elements.hpp"

namespace k25 {

void add_rmsnorm_rows(std::byte* sum, const std::byte* residual, const std::byte* weight, std::byte* norm_out,
                      std::size_t first_row, std::size_t rows, std::size_t row_elements, Dtype dtype) {
  for (std::size_t r = first_row; r < first_row + rows; ++r) {
    const std::size_t base = r * row_elements;
    float squares = 0;
    for (std::size_t j = 0; j < row_elements; ++j) {
      const float x = load_element(sum, base + j, dtype) + load_element(residual, base + j, dtype);
      store_element(sum, base + j, dtype, x);
      const float stored = load_element(sum, base + j, dtype);
      squares += stored * stored;
    }
    const float scale = 1.0f / std::sqrt(squares / static_cast<float>(row_elements) + check::kEpilogueEps);
    for (std::size_t j = 0; j < row_elements; ++j)
      store_element(norm_out, base + j, dtype,
                    load_element(sum, base + j, dtype) * scale * load_element(weight, j, dtype));
  }
}

void fill_epilogue_inputs(std::byte* residual, std::byte* weight, std::size_t rows, std::size_t row_elements,
                          Dtype dtype) {
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < row_elements; ++j)
      store_element(residual, r * row_elements + j, dtype, static_cast<float>(check::epilogue_residual(j)));
  for (std::size_t j = 0; j < row_elements; ++j) store_element(weight, j, dtype, check::epilogue_weight(j));
}

std::vector<float> add_rmsnorm_reference(int ranks, std::size_t row_elements, int parity, std::uint64_t op) {
  std::vector<double> x(row_elements);
  double squares = 0;
  for (std::size_t j = 0; j < row_elements; ++j) {
    x[j] = check::allreduce_burst_expected(ranks, static_cast<std::uint64_t>(parity) + j, op) +
           check::epilogue_residual(j);
    squares += x[j] * x[j];
  }
  const double scale = 1.0 / std::sqrt(squares / static_cast<double>(row_elements) + check::kEpilogueEps);
  std::vector<float> out(row_elements);
  for (std::size_t j = 0; j < row_elements; ++j)
    out[j] = static_cast<float>(x[j] * scale * check::epilogue_weight(j));
  return out;
}

EpilogueReference add_rmsnorm_references(int ranks, std::size_t row_elements) {
  EpilogueReference reference;
  for (std::uint64_t op = 0; op < 3; ++op)
    for (int parity = 0; parity < 2; ++parity)
      reference[epilogue_reference_index(op, static_cast<std::size_t>(parity))] =
          add_rmsnorm_reference(ranks, row_elements, parity, op);
  return reference;
}

bool within_epilogue_bound(float got, float reference) {
  return std::fabs(got - reference) <= kEpilogueRelativeBound * std::fabs(reference);
}

std::uint64_t count_allreduce_wrong_host(const std::byte* result, std::size_t count, Dtype dtype, int ranks,
                                         std::uint64_t op) {
  std::uint64_t wrong = 0;
  for (std::size_t i = 0; i < count; ++i)
    if (load_element(result, i, dtype) != static_cast<float>(check::allreduce_burst_expected(ranks, i, op)))
      ++wrong;
  return wrong;
}

std::uint64_t count_epilogue_wrong_host(const std::byte* result, const std::byte* norm_out, std::size_t rows,
                                        std::size_t row_elements, Dtype dtype, int ranks, std::uint64_t op,
                                        const EpilogueReference& reference) {
  std::uint64_t wrong = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t base = r * row_elements;
    const std::vector<float>& expected_norm = reference[epilogue_reference_index(op, base % 2)];
    for (std::size_t j = 0; j < row_elements; ++j) {
      const float sum = static_cast<float>(check::allreduce_burst_expected(ranks, base + j, op) +
                                           check::epilogue_residual(j));
      if (load_element(result, base + j, dtype) != sum ||
          !within_epilogue_bound(load_element(norm_out, base + j, dtype), expected_norm[j]))
        ++wrong;
    }
  }
  return wrong;
}

}  // namespace k25
