// doctor's own outputs in words: doctor.md, the console summary, and what `doctor --compare` prints.
#pragma once

#include <string>
#include <vector>

#include "doctor/model/doctor_document.hpp"
#include "doctor/verdicts/node_compare.hpp"

namespace k25 {

// doctor.md: the headline, the inputs read, the node's sections and the backends that ran (or that no capture
// was given).
std::string doctor_markdown(const DoctorDocument& document);

// What doctor prints: the headline, each verdict's line and evidence, the inputs read, the path matrix, the
// measured matrix where measured, sources that disagree, the inputs not given, and what could not be seen.
std::string doctor_console(const DoctorDocument& document);

// What `doctor --compare` prints: both sides' sources and headlines and one line per difference.
std::string node_compare_text(const DoctorDocument& a, const DoctorDocument& b,
                              const std::vector<NodeDifference>& differences);

}  // namespace k25
