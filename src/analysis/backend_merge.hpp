// `k25comm report A.json --backends-from B.json`: another run's AllReduce rows (a tools/nccl-sweep variant, a
// symmetric-registration run) as backends of A's table, named after what sets them apart, their setup checked
// like for like as compare checks it.
#pragma once

#include <string>

#include "analysis/run_report.hpp"

namespace k25 {

// Appends the AllReduce rows of `other` (its own collective's and its other backends') to
// `report.backend_results`, each named "<backend> <what differs>": the buffer registration where it differs
// ("nccl register=symmetric"), the NCCL_* variables where they differ ("nccl NCCL_PROTO=LL"), else the file's
// folder; a name already used gets " #2". Throws UsageError naming `other_path` where the models differ,
// where it has no AllReduce rows, or where a setup field compare checks (dtype, ranks, transport, in place,
// bytes, ops per step, padded tokens, device-only) differs at a point both measured.
void merge_backend_variants(RunReport& report, const RunReport& other, const std::string& other_path);

}  // namespace k25
