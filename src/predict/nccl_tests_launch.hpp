// What a pasted nccl-tests output says of how many ranks it ran, and where that came from: the launch (an
// mpirun/mpiexec/srun command's process count and hosts, SLURM_NTASKS, WORLD_SIZE, a *_perf command run
// without a launcher: one process) times the run's "nThread N nGpus M"; its "#  Rank" lines only where
// nothing else says (a paste often shows some of them).
#pragma once

#include <optional>
#include <set>
#include <string>

namespace k25 {

// No run has more ranks (or processes); a garbled or fuzzed file may say so: counts are held to it.
inline constexpr int kMaxRankCount = 1000000;

// The process count a line of the paste says, and its hosts where it names them.
struct LaunchFact {
  int processes = 0;
  int hosts = 0;                     // 0: not said
  std::string source;                // "mpirun -np 16 at line 1", "SLURM_NTASKS=8 at line 2", ...
  bool one_process_command = false;  // a *_perf command without a launcher
};

// The fact `line` (a pasted line, its prefixes taken off) says, at line `number`; empty where it says none.
// Comment lines of the output ("# ...", "Collective test starting: ...") are none.
std::optional<LaunchFact> launch_fact(const std::string& line, int number);

// What one run says of itself: its launch (the last fact before its table), its "nThread N nGpus M" (0: no
// such line), the rank numbers and hosts of its "#  Rank" lines.
struct RunRankLines {
  std::optional<LaunchFact> launch;
  int threads = 0, gpus = 0;
  std::set<int> rank_numbers;
  std::set<std::string> hostnames;
};

struct RankCount {
  int ranks = 0, hosts = 0;  // 0: not said
  std::string source;  // "16 = 16 processes x 1 thread x 1 GPU (nThread 1 nGpus 1; the processes from ...)"
};

// The run's rank count: processes x threads x GPUs where the launch says the processes (a command without a
// launcher: one), else the "#  Rank" lines' highest rank + 1 where it is more than one process's threads x
// GPUs, else one process's; the rank lines where the launch says fewer than they name (said). Hosts: the
// launch's, else the rank lines'.
RankCount said_rank_count(const RunRankLines& run);

}  // namespace k25
