// A square rank-to-rank matrix of byte (or copy) counts: entry (src, dst) is what rank src sends to rank dst.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace k25 {

class ByteMatrix {
 public:
  ByteMatrix() = default;
  explicit ByteMatrix(int ranks) : ranks_(ranks), cells_(static_cast<std::size_t>(ranks) * ranks, 0) {}

  int ranks() const { return ranks_; }
  std::uint64_t at(int src, int dst) const { return cells_[index(src, dst)]; }
  std::uint64_t& at(int src, int dst) { return cells_[index(src, dst)]; }
  std::uint64_t row_sum(int src) const;  // bytes rank src sends
  std::uint64_t col_sum(int dst) const;  // bytes rank dst receives
  std::uint64_t total() const;
  ByteMatrix transposed() const;
  ByteMatrix scaled(std::uint64_t factor) const;
  bool operator==(const ByteMatrix&) const = default;

 private:
  std::size_t index(int src, int dst) const { return static_cast<std::size_t>(src) * ranks_ + dst; }
  int ranks_ = 0;
  std::vector<std::uint64_t> cells_;
};

}  // namespace k25
