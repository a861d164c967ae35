// The table of doctor's verdict kinds: for each VerdictId its severity, title, what it costs in general, what
// fixes it and where that advice comes from. docs/doctor.md's table of verdicts is made from it (a test keeps
// the two equal), and every verdict line starts from its kind's words.
#pragma once

#include <string>
#include <vector>

#include "doctor/model/node_verdict.hpp"

namespace k25 {

struct VerdictKind {
  VerdictId id;
  Severity severity;
  const char* title;   // "ACS redirects peer traffic"
  const char* cost;    // what it costs, in general
  const char* fix;     // what fixes it, in general (the verdict adds the concrete command)
  const char* source;  // where the advice comes from: a document's name
  const char* url;     // and its address
};

// Every kind, in VerdictId order (the order doctor lists them).
const std::vector<VerdictKind>& verdict_kinds();
const VerdictKind& verdict_kind(VerdictId id);

// A verdict of kind `id` with this node's finding; an empty cost or fix takes the kind's.
NodeVerdict verdict_of(VerdictId id, std::string finding, std::string cost = {}, std::string fix = {});

// The markdown table of verdict_kinds() that docs/doctor.md holds between its "verdicts: generated" markers.
std::string verdict_kinds_markdown();

}  // namespace k25
