// A CSV of per-op figures as an alternative: what a user writes from any published table.
#pragma once

#include <string>

#include "predict/predict_inputs.hpp"

namespace k25 {

// Whether `text`'s first line that is not blank or a '#' comment names the columns kind, bytes and op_us
// (in any order, among others).
bool looks_like_alt_csv(const std::string& text);

// Columns (a header line first; '#' lines and blank lines are skipped): kind, bytes, op_us (per op, us), and
// optionally p90 (or op_us_p90), dtype and overlap (additive, or ring or tree; overlapping, or one-shot: how
// the op lies against the ranks' wait). Sizes are nccl-tests' (an AllGather's gathered output); where the
// CSV says its sizes are a rank's part (a bytes_per column, or a "# bytes_per: rank" line, as capture.json's
// rows give them), each is read at nccl-tests' size: x the ranks of its ranks column, its "# ranks: N" line,
// else `base_ranks` (the base's group size; 0: not known), said. Throws UsageError naming `path` (and the
// line) for a missing column, a cell that is not a number, a negative or zero size or time, a p90 below
// op_us, an overlap or a bytes_per of another name, two overlaps for one kind, per-rank sizes whose rank
// count nobody says, or no row.
AltDocument alt_from_csv(const std::string& text, const std::string& path, int base_ranks);

}  // namespace k25
