// Bandwidth as nccl-tests defines it, so users can compare: algbw = bytes per rank / time;
// busbw = algbw x the kind's factor (common/collective_kind.cpp). GB/s are 1e9 bytes per second.
#pragma once

#include "common/collective_kind.hpp"

namespace k25 {

double algbw_gbps(double bytes_per_rank, double time_us);
double busbw_factor(CollectiveKind kind, int ranks);  // kind_info(kind).busbw_factor

}  // namespace k25
