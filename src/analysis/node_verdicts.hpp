// Doctor's verdicts: each finding about a host's GPUs and links as one line that says what was seen, what it
// costs, what fixes it and where that advice comes from. The kinds of verdict are one table
// (verdict_kinds()), from which docs/doctor.md's table is made and checked.
#pragma once

#include <string>
#include <vector>

#include "topology/node_facts.hpp"

namespace k25 {

// "cost": it costs now; "check": it may cost, verify; "unseen": what doctor could not see.
struct VerdictKind {
  const char* id;        // "acs_redirect"
  const char* severity;  // "cost" | "check" | "unseen"
  const char* title;     // "ACS redirects peer traffic"
  const char* cost;      // what it costs, in general
  const char* fix;       // what fixes it, in general (the verdict adds the concrete command)
  const char* source;    // where the advice comes from: a document's name
  const char* url;       // and its address
};

// Every kind of verdict, in the order doctor lists them.
const std::vector<VerdictKind>& verdict_kinds();
// The kind with `id`; throws std::out_of_range for an unknown one.
const VerdictKind& verdict_kind(const std::string& id);

struct NodeVerdict {
  std::string id;        // a VerdictKind id
  std::string severity;  // the kind's, or "check" where the evidence is weaker than the kind's
  std::string finding;   // what was seen, concretely (bus ids, GPUs, figures)
  std::string cost;      // what it costs here
  std::string fix;       // what to do here (commands with this host's bus ids)
  std::string source;    // "NCCL troubleshooting guide, PCI Access Control Services (ACS)"
  std::string url;
  // "cost: FINDING: COST. Fix: FIX [source: SOURCE, URL]"
  std::string line() const;
};

// What an engine's documented rule makes of this host (vLLM's custom all-reduce and PCIe; see
// docs/doctor.md): nothing where the host has two GPUs or fewer, or all its pairs are NVLink.
std::vector<NodeVerdict> engine_rule_verdicts(const NodeFacts& facts);

// A capture's note that an engine's documented rule would have chosen another backend, as a verdict.
NodeVerdict backend_rule_verdict(const std::string& note);

// Every verdict the facts call for, in verdict_kinds() order, each kind at most once per subject (a bridge, a
// GPU, a set of pairs). Pure: the same facts give the same lines.
std::vector<NodeVerdict> node_verdicts(const NodeFacts& facts);

// The one-line summary of a host: "HOST: 8 GPUs, PCIe (12 pairs same PCIe switch, 16 across CPU sockets); 3
// findings that cost: ACS redirects peer traffic, ... [NCCL through SHM where P2P was possible]". The
// bracketed tag appears where NCCL's log shows a pair through shared memory or the network where P2P was
// possible.
std::string node_headline(const NodeFacts& facts, const std::vector<NodeVerdict>& verdicts);

// The markdown table of verdict_kinds() (id, what it costs, how to fix it, source) that docs/doctor.md holds
// between its "verdicts: generated" markers.
std::string verdict_kinds_markdown();

}  // namespace k25
