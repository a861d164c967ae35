// Finds the decode step in a communicator's op sequence: the repeating pattern of op kinds (e.g. 123
// AllReduces then one AllGather), the steps that follow it exactly, and which of them are prefill (sizes far
// above decode's).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "capture/analysis/rank_join.hpp"
#include "capture/model/capture_rules.hpp"

namespace k25 {

struct StepHints {
  // AllReduces per step from --model (layers x allreduces_per_layer, + 1 with embedding_allreduce): cuts a
  // sequence that holds nothing but AllReduces into steps. Unset: such a sequence has no step.
  std::optional<int> model_allreduces_per_step;
  // A step whose size (bytes of its ops of the dominant kind) is above this is prefill. Unset: above the
  // largest jump of at least prefill_factor x between consecutive step sizes that lies above the sizes of
  // half the steps (none: every step is decode).
  std::optional<std::uint64_t> prefill_above_bytes;
  double prefill_factor = CaptureRules::kDefaultPrefillFactor;
  // A profiler trace's steps, found on its timeline (JoinedOp::step, ::phase): the step detection takes them
  // as they are and names this method ("engine_marks", "comm_pattern", "gpu_idle_gaps").
  std::string given_method;
};

struct PatternRun {
  std::uint16_t kind = 0;
  int count = 0;
};

struct DetectedStep {
  std::size_t first = 0, last = 0;  // positions in CommunicatorOps::sequence, inclusive
  std::uint64_t bytes = 0;          // the step's size: its largest op of the dominant kind
  double comm_us = 0;               // sum of its ops' times (each the max over ranks)
  bool prefill = false;
  bool phase_unknown = false;  // a trace's step whose mark (or batch) gives no phase: counted with decode
  bool partial = false;  // some op lacks a rank's record: its time is the max over the ranks that have it
};

struct StepDetection {
  bool found = false;
  std::string method;  // "anchor" (an op once per step closes it), "model_allreduces_per_step" or given
  std::string reason;  // why no step was found
  std::optional<std::uint16_t> anchor_kind;
  std::uint16_t dominant_kind = 0;  // the kind with most ops per step; its size is the step's size
  std::vector<PatternRun> pattern;  // the step as runs of kinds, in order
  int ops_per_step = 0;
  std::vector<DetectedStep> steps;        // every complete step of the pattern, in sequence order
  std::uint64_t incomplete_segments = 0;  // segments holding a missing sequence number (dropped/sampled ops)
  std::uint64_t other_segments = 0;       // complete segments of another shape
  std::vector<std::pair<std::string, std::uint64_t>> other_shapes;  // the most frequent ones, "kind x n, ..."
  std::uint64_t ops_outside_steps = 0;
  std::uint64_t prefill_above_bytes = 0;
  std::string prefill_rule;  // how the threshold was set
};

// `kinds` names the kind indices (InspectorCapture::kinds).
StepDetection detect_steps(const CommunicatorOps& comm, const std::vector<std::string>& kinds,
                           const StepHints& hints);

// The hints every step finder takes (a communicator's records, a profiler trace's collectives), so that one
// prefill rule holds for both: with a model, its AllReduces per step and, where --prefill-tokens is given,
// the size above which a step is prefill (tokens x the model's bytes per token); else the factor's jump.
StepHints step_hints(const std::optional<CaptureModel>& model, double prefill_factor,
                     std::optional<int> prefill_tokens);

// "AllReduce x 123, AllGather x 1".
std::string describe_pattern(const std::vector<PatternRun>& pattern, const std::vector<std::string>& kinds);

}  // namespace k25
