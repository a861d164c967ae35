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
// the op lies against the ranks' wait). Throws UsageError naming `path` (and the line) for a missing column,
// a cell that is not a number, a negative or zero size or time, a p90 below op_us, an overlap of another name
// or two for one kind, or no row.
AltDocument alt_from_csv(const std::string& text, const std::string& path);

}  // namespace k25
