// The known NCCL x GPU rules and their sources.
#include "doctor/verdicts/nccl_version_rules.hpp"

#include <cstdio>

namespace k25 {
namespace {

bool contains(const std::string& text, const char* word) {
  return text.find(word) != std::string::npos;
}

// sm_120: the GeForce RTX 50 series and the RTX PRO Blackwell cards.
bool is_sm120(const NodeGpu& gpu) {
  if (gpu.sm == 120) return true;
  for (const char* model : {"RTX 5090", "RTX 5080", "RTX 5070", "RTX 5060", "RTX 5050"})
    if (contains(gpu.name, model)) return true;
  return contains(gpu.name, "RTX PRO") && contains(gpu.name, "Blackwell");
}

// sm_100: B200, GB200, B300.
bool is_sm100(const NodeGpu& gpu) {
  if (gpu.sm == 100 || gpu.sm == 103) return true;
  for (const char* model : {"B200", "B100", "B300"})
    if (contains(gpu.name, model)) return true;
  return false;
}

}  // namespace

const std::vector<NcclVersionRule>& nccl_version_rules() {
  static const std::vector<NcclVersionRule> kRules = {
      {"GeForce Blackwell (sm_120: the RTX 50 series, RTX PRO Blackwell)",
       is_sm120,
       {2, 25, 0},
       {2, 26, 2},
       Severity::cost,
       "NCCL 2.25's kernels ask for more shared memory than an sm_120 GPU gives them ('ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856'): every collective fails to launch",
       "ncclMaxSharedMem",
       "use NCCL 2.26.2 or later (pip install -U nvidia-nccl-cu12, or an engine image built with it)",
       "NVIDIA/nccl-tests#287 (NCCL all_reduce_perf errors with 5090s: 2.25.1 fails, 2.26.2 runs) and NVIDIA/nccl#1637 (\"no chance to get things to work with 2.25.1\")",
       "https://github.com/NVIDIA/nccl-tests/issues/287"},
      {"Blackwell data center GPUs (sm_100: B200, GB200, B300)",
       is_sm100,
       {2, 0, 0},
       {2, 25, 1},
       Severity::check,
       "NCCL before 2.25.1 has no sm_100 build: its kernels run, if at all, from PTX compiled at the first launch, without Blackwell's tuning",
       "",
       "use NCCL 2.25.1 or later, the first release with Blackwell (sm_100) support",
       "NCCL v2.25.1-1 release notes (\"Add Blackwell/SM100 support\")",
       "https://github.com/NVIDIA/nccl/releases/tag/v2.25.1-1"},
  };
  return kRules;
}

NcclVersionNumber nccl_version_number(const std::string& version) {
  NcclVersionNumber number{0, 0, 0};
  if (std::sscanf(version.c_str(), "%d.%d.%d", &number[0], &number[1], &number[2]) != 3) return {0, 0, 0};
  return number;
}

}  // namespace k25
