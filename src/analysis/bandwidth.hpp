// Bandwidth as nccl-tests defines it, so users can compare: algbw = bytes per rank / time;
// busbw = algbw x 2(n-1)/n for AllReduce, x (n-1)/n for All-to-All. GB/s are 1e9 bytes per second.
#pragma once

#include "config/run_config.hpp"

namespace k25 {

double algbw_gbps(double bytes_per_rank, double time_us);
double busbw_factor(Phase phase, int ranks);

}  // namespace k25
