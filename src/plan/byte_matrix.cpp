// Row, column and total sums of rank-to-rank byte matrices.
#include "plan/byte_matrix.hpp"

#include <numeric>

namespace k25 {

std::uint64_t ByteMatrix::row_sum(int src) const {
  std::uint64_t sum = 0;
  for (int dst = 0; dst < ranks_; ++dst) sum += at(src, dst);
  return sum;
}

std::uint64_t ByteMatrix::col_sum(int dst) const {
  std::uint64_t sum = 0;
  for (int src = 0; src < ranks_; ++src) sum += at(src, dst);
  return sum;
}

std::uint64_t ByteMatrix::total() const {
  return std::accumulate(cells_.begin(), cells_.end(), std::uint64_t{0});
}

ByteMatrix ByteMatrix::transposed() const {
  ByteMatrix out(ranks_);
  for (int src = 0; src < ranks_; ++src)
    for (int dst = 0; dst < ranks_; ++dst) out.at(dst, src) = at(src, dst);
  return out;
}

ByteMatrix ByteMatrix::scaled(std::uint64_t factor) const {
  ByteMatrix out = *this;
  for (auto& cell : out.cells_) cell *= factor;
  return out;
}

}  // namespace k25
