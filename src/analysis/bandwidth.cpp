// nccl-tests' algorithm and bus bandwidth arithmetic.
#include "analysis/bandwidth.hpp"

namespace k25 {

double algbw_gbps(double bytes_per_rank, double time_us) {
  if (time_us <= 0) return 0.0;
  return bytes_per_rank / (time_us * 1e-6) / 1e9;
}

double busbw_factor(CollectiveKind kind, int ranks) {
  return kind_info(kind).busbw_factor(ranks);
}

}  // namespace k25
