// `dcgmi diag -r 2 -j` (or -r 3, -r 4) as pasted: DCGM's JSON ("DCGM GPU Diagnostic", or "DCGM Diagnostic" in
// later versions: test_categories, each test's results per GPU with status, warnings and info). Read token by
// token rather than parsed whole, so that a paste cut short keeps the results before the cut and each result
// keeps its line. Only the tests on the GPUs' links are kept: PCIe (DCGM's "pcie" plugin, which also copies
// over NVLink), NVLink and nvbandwidth.
#pragma once

#include <vector>

#include "doctor/model/node_model.hpp"
#include "doctor/readers/pasted_text.hpp"

namespace k25 {

struct DcgmDiag {
  std::vector<DcgmResult> results;
  int tests = 0;  // tests of any kind seen
};

// Whether `text` holds dcgmi diag's JSON.
bool has_dcgm_diag(const PastedText& text);

DcgmDiag read_dcgm_diag(const PastedText& text);

}  // namespace k25
