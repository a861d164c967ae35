// The captured decode step as a model.sequence (config/run_config.hpp's SequenceOp): what `capture
// --emit-config` writes so that k25comm replays the op sequence a live server issued.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/capture_document.hpp"
#include "config/run_config.hpp"

namespace k25 {

struct CapturedSequence {
  std::vector<SequenceOp> ops;  // empty, with `reason`, where the step cannot be written as a sequence
  std::vector<int> tokens;      // the token counts of the decode steps seen, ascending
  std::string communicator;     // its name, else its id
  int ranks = 0;
  std::uint64_t steps = 0;         // decode steps read
  std::vector<std::string> notes;  // what the sequence assumes (one token count seen, the dtype)
  std::string reason;              // why there is no sequence
};

// From the decode steps of the communicator with the most of them (capture.timelines): each op's size as
// nccl-tests counts it (the Inspector writes an AllGather's or ReduceScatter's per-rank part: times the
// ranks), and the step's token count from its largest AllReduce over the model's bytes per token
// (capture.model, from --model; required). An op whose size is tokens x a whole number of bytes in every step
// gets bytes_per_token, one with the same size in every step fixed `bytes`; runs of equal entries merge into
// one with a count. The element type is not in the Inspector's records: `dtype` is used (the model's
// activation dtype). Steps must all hold the same kinds in the same order, of AllReduce, AllGather and
// ReduceScatter only.
CapturedSequence captured_sequence(const CaptureResult& capture, Dtype dtype);

}  // namespace k25
