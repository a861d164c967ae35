// Test-only --inject-hang "PHASE:TOKENS:OP[:RANK[:BACKEND]]": the op before which a rank's stream (or the
// rank) waits for ever, to prove the watchdogs fire. The plan marks that op (CollectiveOp::stall_before);
// with BACKEND, only in the burst that AllReduce backend runs (--allreduce-backends).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "common/vocabulary.hpp"

namespace k25 {

struct HangSpec {
  Phase phase = Phase::allreduce;
  int tokens = 0;
  std::size_t op = 0;
  int rank = -1;  // -1: every rank hangs at that op; else only this world rank (its peers then wait on it)
  std::optional<AllreduceBackend> backend;  // only that backend's burst; none: every backend's
  bool applies_to(AllreduceBackend candidate) const { return !backend || *backend == candidate; }
};

// Parses the option's value; an empty text means no injection. Throws UsageError on a malformed value.
std::optional<HangSpec> parse_hang_spec(const std::string& text);

}  // namespace k25
