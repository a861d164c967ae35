// The runs of an nccl-tests output (one table each), as its text and -J readers find them, turned into an
// alternative by the rules both follow: the kind of each run, one run per kind, the sum rows of -o all.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "predict/nccl_tests_reader.hpp"

namespace k25 {

// One result row: a size's time, its element type and reduction.
struct NcclTestsRow {
  double bytes = 0, time_us = 0;
  std::string dtype, redop;  // normalized dtype; redop as printed ("sum", "none", "prod")
};

// One run of a *_perf program: its table's rows and what the run says of itself.
struct NcclTestsRun {
  std::string kind;          // normalized, from the run's own words; empty where it does not say
  std::string version;       // "2.19.6" from its "nccl-tests version" line; empty where it has none
  int ranks = 0, hosts = 0;  // 0: not said
  std::string ranks_source = "not said";  // the count and where it came from (nccl_tests_launch.hpp)
  std::optional<bool> graph;              // -G launches (> 0); empty where not said
  int line = 0;                           // where its table starts (JSON: 0)
  std::vector<NcclTestsRow> rows;
};

// The op time of a size timed out of place and in place: out of place, unless the two differ by more than
// kPlacementOutlier x (one caught a stall, or a protocol switch hit one placement: one public H200 table has
// 240.7 us out of place against 125.7 us in place at 512 KiB): then the smaller, said in `notes`.
inline constexpr double kPlacementOutlier = 1.5;
double guarded_op_us(double out_of_place_us, std::optional<double> in_place_us, const std::string& where,
                     double bytes, std::vector<std::string>& notes);

// The alternative from `runs` of the file at `path`: each run's kind its own, else --kind, else
// `program_kind` (the *_perf program the output names), else the file name's; --kind against a kind the file
// says is refused. Several runs of one kind: the one of the base's group size, else refused naming them.
// `notes` (sizes left out, where the kind came from) go into the document. Throws UsageError naming `path`.
AltDocument alt_from_nccl_tests_runs(const std::vector<NcclTestsRun>& runs, const std::string& path,
                                     const AltReadContext& context, const std::string& program_kind,
                                     std::vector<std::string> notes);

}  // namespace k25
