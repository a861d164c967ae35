// Weighted sampling by inverse CDF: the index of the first cumulative weight above a target, found in O(1)
// on average.
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

namespace k25 {

// The index of the first cumulative weight above a target in [0, total); weights non-empty and positive. A
// guide table (one bucket per weight) gives where to start; a short forward scan finds the index, which is by
// construction the one std::upper_bound would give (kept as the fallback), so matrices do not depend on the
// search.
class InverseCdf {
 public:
  explicit InverseCdf(const std::vector<double>& weights)
      : cumulative_(weights.size()), guide_(weights.size()) {
    std::partial_sum(weights.begin(), weights.end(), cumulative_.begin());
    total_ = cumulative_.back();
    const double buckets = static_cast<double>(guide_.size());
    for (std::size_t b = 0; b < guide_.size(); ++b)
      guide_[b] = upper_bound_index(static_cast<double>(b) * total_ / buckets);
  }

  double total() const { return total_; }

  int index_of(double target) const {
    const auto bucket = static_cast<std::size_t>(target / total_ * static_cast<double>(guide_.size()));
    std::size_t i = bucket < guide_.size() ? guide_[bucket] : cumulative_.size();
    if (i > 0 && (i >= cumulative_.size() || cumulative_[i - 1] > target)) {
      i = upper_bound_index(target);  // rounding put the bucket's start past the answer
    } else {
      while (i < cumulative_.size() && cumulative_[i] <= target) ++i;
    }
    return static_cast<int>(std::min(i, cumulative_.size() - 1));
  }

 private:
  std::size_t upper_bound_index(double target) const {
    return static_cast<std::size_t>(std::upper_bound(cumulative_.begin(), cumulative_.end(), target) -
                                    cumulative_.begin());
  }

  std::vector<double> cumulative_;
  std::vector<std::size_t> guide_;
  double total_ = 0;
};

}  // namespace k25
