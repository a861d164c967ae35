// Step detection: segments closed by a once-per-step op (the anchor), their modal shape, and prefill by size.
#include "capture/analysis/step_detection.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "common/collective_kind_names.hpp"

namespace k25 {
namespace {

// The shape of sequence positions [first, last]: runs of kinds, as text usable as a map key.
std::string shape_key(const CommunicatorOps& comm, std::size_t first, std::size_t last) {
  std::string key;
  std::uint16_t kind = comm.ops[comm.sequence[first]].kind;
  int count = 0;
  for (std::size_t i = first; i <= last; ++i) {
    const std::uint16_t k = comm.ops[comm.sequence[i]].kind;
    if (k != kind) {
      key += fmt::format("{}:{},", kind, count);
      kind = k;
      count = 0;
    }
    ++count;
  }
  key += fmt::format("{}:{},", kind, count);
  return key;
}

std::vector<PatternRun> parse_shape(const std::string& key) {
  std::vector<PatternRun> runs;
  std::size_t pos = 0;
  while (pos < key.size()) {
    const std::size_t colon = key.find(':', pos);
    const std::size_t comma = key.find(',', colon);
    runs.push_back({static_cast<std::uint16_t>(std::stoul(key.substr(pos, colon - pos))),
                    std::stoi(key.substr(colon + 1, comma - colon - 1))});
    pos = comma + 1;
  }
  return runs;
}

std::string describe_shape(const std::string& key, const std::vector<std::string>& kinds) {
  return describe_pattern(parse_shape(key), kinds);
}

// Positions whose op may be one of several missing ones: for each op whose sequence number does not follow
// the previous one of its kind, every position from just after that previous op up to this one.
std::vector<std::uint32_t> uncertain_prefix(const CommunicatorOps& comm, std::size_t kind_count) {
  const std::size_t n = comm.sequence.size();
  std::vector<int> diff(n + 1, 0);
  std::vector<std::uint64_t> previous_sn(kind_count, 0);
  std::vector<std::size_t> previous_pos(kind_count, 0);
  std::vector<bool> seen(kind_count, false);
  for (std::size_t i = 0; i < n; ++i) {
    const JoinedOp& op = comm.ops[comm.sequence[i]];
    if (seen[op.kind] && op.sn != previous_sn[op.kind] + 1) {
      ++diff[previous_pos[op.kind] + 1];
      --diff[i + 1];
    }
    seen[op.kind] = true;
    previous_sn[op.kind] = op.sn;
    previous_pos[op.kind] = i;
  }
  // prefix[i] = number of uncertain positions before i (so [a, b] holds one iff prefix[b + 1] > prefix[a]).
  std::vector<std::uint32_t> prefix(n + 1, 0);
  int depth = 0;
  for (std::size_t i = 0; i < n; ++i) {
    depth += diff[i];
    prefix[i + 1] = prefix[i] + (depth > 0 ? 1 : 0);
  }
  return prefix;
}

struct AnchorTrial {
  bool accepted = false;
  std::string modal_key;
  std::uint64_t modal_count = 0;
  std::uint64_t certain_segments = 0, incomplete = 0;
};

AnchorTrial try_anchor(const CommunicatorOps& comm, std::uint16_t anchor,
                       const std::vector<std::uint32_t>& uncertain) {
  AnchorTrial trial;
  std::vector<std::size_t> anchors;
  for (std::size_t i = 0; i < comm.sequence.size(); ++i)
    if (comm.ops[comm.sequence[i]].kind == anchor) anchors.push_back(i);
  std::unordered_map<std::string, std::uint64_t> shapes;
  for (std::size_t j = 0; j + 1 < anchors.size(); ++j) {
    const std::size_t first = anchors[j] + 1, last = anchors[j + 1];
    if (uncertain[last + 1] > uncertain[first]) {
      ++trial.incomplete;
      continue;
    }
    ++trial.certain_segments;
    ++shapes[shape_key(comm, first, last)];
  }
  for (const auto& [key, count] : shapes) {
    if (count > trial.modal_count || (count == trial.modal_count && key < trial.modal_key)) {
      trial.modal_count = count;
      trial.modal_key = key;
    }
  }
  if (trial.modal_count < 2) return trial;
  std::uint64_t covered = 0, modal_length = 0;
  for (const PatternRun& run : parse_shape(trial.modal_key))
    modal_length += static_cast<std::uint64_t>(run.count);
  covered = trial.modal_count * modal_length;
  const std::uint64_t middle = anchors.back() - anchors.front();
  trial.accepted = covered * 2 >= middle;
  return trial;
}

using Spans = std::vector<std::pair<std::size_t, std::size_t>>;

// The most frequent other shapes, at most 5, most frequent first.
void keep_other_shapes(const std::map<std::string, std::uint64_t>& others, StepDetection& d) {
  std::vector<std::pair<std::string, std::uint64_t>> sorted(others.begin(), others.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (sorted.size() > 5) sorted.resize(5);
  d.other_shapes = std::move(sorted);
}

// The trace's own steps: runs of positions with one step number; the most frequent shape is the pattern.
Spans given_steps(const CommunicatorOps& comm, const std::vector<std::string>& kinds, const StepHints& hints,
                  StepDetection& d) {
  const std::size_t n = comm.sequence.size();
  Spans spans, steps;
  for (std::size_t i = 0; i < n;) {
    const std::int64_t step = comm.ops[comm.sequence[i]].step;
    std::size_t j = i + 1;
    while (j < n && comm.ops[comm.sequence[j]].step == step) ++j;
    if (step >= 0) spans.emplace_back(i, j - 1);
    i = j;
  }
  std::map<std::string, std::uint64_t> shapes;
  for (const auto& [first, last] : spans) ++shapes[shape_key(comm, first, last)];
  std::string modal;
  std::uint64_t modal_count = 0;
  for (const auto& [key, count] : shapes)
    if (count > modal_count) {
      modal = key;
      modal_count = count;
    }
  if (modal_count == 0) return steps;
  d.found = true;
  d.method = hints.given_method;
  d.pattern = parse_shape(modal);
  std::map<std::string, std::uint64_t> others;
  for (const auto& [first, last] : spans) {
    const std::string key = shape_key(comm, first, last);
    if (key == modal) {
      steps.emplace_back(first, last);
    } else {
      ++d.other_segments;
      ++others[describe_shape(key, kinds)];
    }
  }
  keep_other_shapes(others, d);
  return steps;
}

// Steps closed by the first candidate kind (rarest first) that recurs with the same ops between.
Spans anchor_steps(const CommunicatorOps& comm, const std::vector<std::string>& kinds,
                   const std::vector<std::uint16_t>& candidates, const std::vector<std::uint32_t>& uncertain,
                   StepDetection& d, bool& only_incomplete) {
  Spans steps;
  for (std::uint16_t anchor : candidates) {
    const AnchorTrial trial = try_anchor(comm, anchor, uncertain);
    if (trial.certain_segments == 0 && trial.incomplete > 0) only_incomplete = true;
    if (!trial.accepted) continue;
    d.found = true;
    d.method = "anchor";
    d.anchor_kind = anchor;
    d.pattern = parse_shape(trial.modal_key);
    d.incomplete_segments = trial.incomplete;
    std::map<std::string, std::uint64_t> others;
    std::size_t previous = std::string::npos;
    for (std::size_t i = 0; i < comm.sequence.size(); ++i) {
      if (comm.ops[comm.sequence[i]].kind != anchor) continue;
      if (previous != std::string::npos) {
        const std::size_t first = previous + 1, last = i;
        if (uncertain[last + 1] == uncertain[first]) {
          const std::string key = shape_key(comm, first, last);
          if (key == trial.modal_key) {
            steps.emplace_back(first, last);
          } else {
            ++d.other_segments;
            ++others[describe_shape(key, kinds)];
          }
        }
      }
      previous = i;
    }
    keep_other_shapes(others, d);
    break;
  }
  return steps;
}

// Runs of same-size AllReduces, each cut into steps of the model's AllReduces per step from its start.
Spans model_steps(const CommunicatorOps& comm, std::uint16_t allreduce_kind,
                  const std::vector<std::uint32_t>& uncertain, const StepHints& hints, StepDetection& d) {
  const std::size_t n = comm.sequence.size();
  Spans steps;
  const auto per_step = static_cast<std::size_t>(*hints.model_allreduces_per_step);
  const auto is_uncertain = [&](std::size_t i) { return uncertain[i + 1] != uncertain[i]; };
  const auto usable = [&](std::size_t i) {
    return !is_uncertain(i) && comm.ops[comm.sequence[i]].kind == allreduce_kind;
  };
  for (std::size_t i = 0; i < n; ++i)
    if (is_uncertain(i) && (i == 0 || !is_uncertain(i - 1))) ++d.incomplete_segments;
  for (std::size_t i = 0; i < n;) {
    if (!usable(i)) {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    while (j < n && usable(j) && comm.ops[comm.sequence[j]].bytes == comm.ops[comm.sequence[i]].bytes) ++j;
    for (std::size_t s = 0; s < (j - i) / per_step; ++s)
      steps.emplace_back(i + s * per_step, i + (s + 1) * per_step - 1);
    i = j;
  }
  if (steps.size() < 2) return {};
  d.found = true;
  d.method = "model_allreduces_per_step";
  d.pattern = {{allreduce_kind, *hints.model_allreduces_per_step}};
  return steps;
}

std::string no_step_reason(const std::vector<std::string>& kinds,
                           const std::vector<std::uint64_t>& kind_count, const StepHints& hints,
                           bool only_incomplete) {
  std::vector<std::string> present;
  for (std::size_t k = 0; k < kinds.size(); ++k)
    if (kind_count[k] > 0) present.push_back(kinds[k]);
  if (!hints.given_method.empty())
    return fmt::format("the trace's steps ({}) hold none of its collectives", hints.given_method);
  if (only_incomplete)
    return "missing sequence numbers (dropped or sampled records) break every candidate step";
  if (present.size() == 1)
    return fmt::format(
        "the sequence holds only {} ops: no op occurs once per step to delimit steps{}", present.front(),
        names_kind(present.front(), CollectiveKind::allreduce) && !hints.model_allreduces_per_step
            ? "; --model CONFIG cuts AllReduce runs by the model's AllReduces per step"
            : "");
  return fmt::format("no op kind recurs once per step with the same ops between ({} tried)",
                     fmt::join(present, ", "));
}

// The dominant kind (most ops per step: its size is the step's size) and each step's size and time.
void size_steps(const CommunicatorOps& comm, std::size_t kind_count, const Spans& spans, StepDetection& d) {
  std::vector<std::uint64_t> per_kind(kind_count, 0);
  for (const PatternRun& run : d.pattern) {
    per_kind[run.kind] += static_cast<std::uint64_t>(run.count);
    d.ops_per_step += run.count;
  }
  d.dominant_kind =
      static_cast<std::uint16_t>(std::max_element(per_kind.begin(), per_kind.end()) - per_kind.begin());
  for (const auto& [first, last] : spans) {
    DetectedStep step;
    step.first = first;
    step.last = last;
    for (std::size_t i = first; i <= last; ++i) {
      const JoinedOp& op = comm.ops[comm.sequence[i]];
      step.comm_us += op.exec_us;
      if (op.kind == d.dominant_kind) step.bytes = std::max(step.bytes, op.bytes);
      if (op.ranks_present < comm.n_ranks) step.partial = true;
    }
    d.steps.push_back(step);
  }
  d.ops_outside_steps = comm.sequence.size() - d.steps.size() * static_cast<std::size_t>(d.ops_per_step);
}

// Decode steps are the majority and their sizes climb in small ratios (batch sizes); prefill sizes sit far
// above them. The largest jump of at least prefill_factor x between consecutive step sizes, above the sizes
// of half the steps, separates them; without such a jump every step is decode.
void prefill_threshold(const StepHints& hints, StepDetection& d) {
  if (hints.prefill_above_bytes) {
    d.prefill_above_bytes = *hints.prefill_above_bytes;
    d.prefill_rule = "--prefill-tokens";
    return;
  }
  std::map<std::uint64_t, std::uint64_t> size_count;
  for (const DetectedStep& step : d.steps) ++size_count[step.bytes];
  d.prefill_above_bytes = size_count.empty() ? 0 : size_count.rbegin()->first;
  std::uint64_t below = 0;
  double best = 0;
  for (auto it = size_count.begin(); it != size_count.end(); ++it) {
    below += it->second;
    const auto next = std::next(it);
    if (next == size_count.end() || below * 2 < d.steps.size()) continue;
    const double ratio =
        static_cast<double>(next->first) / static_cast<double>(std::max<std::uint64_t>(it->first, 1));
    if (ratio >= hints.prefill_factor && ratio > best) {
      best = ratio;
      d.prefill_above_bytes = it->first;
      d.prefill_rule = fmt::format(
          "the largest jump between step sizes above half of the steps: {} to {} bytes, {:.1f} x (at least {:g} x)",
          it->first, next->first, ratio, hints.prefill_factor);
    }
  }
  if (best == 0)
    d.prefill_rule =
        fmt::format("no jump of {:g} x or more between step sizes above half of the steps: all decode",
                    hints.prefill_factor);
}

// Each step prefill by size; a trace's step whose mark gives its phase keeps it (mixed steps count as
// prefill).
void set_phases(const CommunicatorOps& comm, bool given, StepDetection& d) {
  for (DetectedStep& step : d.steps) {
    step.prefill = step.bytes > d.prefill_above_bytes;
    const char phase = comm.ops[comm.sequence[step.first]].phase;
    if (given && (phase == 'd' || phase == 'p' || phase == 'm')) step.prefill = phase != 'd';
    step.phase_unknown = given && phase == '?' && !step.prefill;
  }
  // A trace's steps without a phase (training steps) are not decode either.
  const std::string_view all_decode = ": all decode";
  if (std::any_of(d.steps.begin(), d.steps.end(), [](const DetectedStep& s) { return s.phase_unknown; }) &&
      d.prefill_rule.ends_with(all_decode))
    d.prefill_rule.replace(d.prefill_rule.size() - all_decode.size(), all_decode.size(), ": none is prefill");
  if (given && std::any_of(d.steps.begin(), d.steps.end(), [&](const DetectedStep& s) {
        return comm.ops[comm.sequence[s.first]].phase != '?';
      }))
    d.prefill_rule =
        "the phase each step's mark gives (mixed steps count as prefill); steps without one by size: " +
        d.prefill_rule;
}

}  // namespace

StepHints step_hints(const std::optional<CaptureModel>& model, double prefill_factor,
                     std::optional<int> prefill_tokens) {
  StepHints hints;
  hints.prefill_factor = prefill_factor;
  if (model) {
    hints.model_allreduces_per_step = model->allreduces_per_step;
    if (prefill_tokens)
      hints.prefill_above_bytes = static_cast<std::uint64_t>(*prefill_tokens) * model->bytes_per_token();
  }
  return hints;
}

std::string describe_pattern(const std::vector<PatternRun>& pattern, const std::vector<std::string>& kinds) {
  std::string text;
  for (const PatternRun& run : pattern) {
    if (!text.empty()) text += ", ";
    text += fmt::format("{} x {}", run.kind < kinds.size() ? kinds[run.kind] : "?", run.count);
  }
  return text;
}

StepDetection detect_steps(const CommunicatorOps& comm, const std::vector<std::string>& kinds,
                           const StepHints& hints) {
  StepDetection d;
  const std::size_t n = comm.sequence.size();
  if (n == 0) {
    d.reason = "no collective records";
    return d;
  }
  const std::vector<std::uint32_t> uncertain = uncertain_prefix(comm, kinds.size());
  std::vector<std::uint64_t> kind_count(kinds.size(), 0);
  for (std::uint32_t index : comm.sequence) ++kind_count[comm.ops[index].kind];
  std::vector<std::uint16_t> candidates;
  for (std::size_t k = 0; k < kinds.size(); ++k)
    if (kind_count[k] >= 3 && kind_count[k] < n) candidates.push_back(static_cast<std::uint16_t>(k));
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](std::uint16_t a, std::uint16_t b) { return kind_count[a] < kind_count[b]; });

  // Segments of each step, as [first, last] positions: the trace's own, else closed by an anchor, else cut
  // by --model's AllReduces per step.
  const bool given = !hints.given_method.empty();
  bool only_incomplete = false;
  Spans spans = given ? given_steps(comm, kinds, hints, d)
                      : anchor_steps(comm, kinds, candidates, uncertain, d, only_incomplete);
  const auto allreduce = std::find(kinds.begin(), kinds.end(), recorded_name(CollectiveKind::allreduce));
  const auto allreduce_kind = static_cast<std::uint16_t>(allreduce - kinds.begin());
  if (!d.found && !given && hints.model_allreduces_per_step && *hints.model_allreduces_per_step > 0 &&
      allreduce != kinds.end() && kind_count[allreduce_kind] > 0)
    spans = model_steps(comm, allreduce_kind, uncertain, hints, d);
  if (!d.found) {
    d.reason = no_step_reason(kinds, kind_count, hints, only_incomplete);
    d.ops_outside_steps = n;
    return d;
  }
  size_steps(comm, kinds.size(), spans, d);
  prefill_threshold(hints, d);
  set_phases(comm, given, d);
  return d;
}

}  // namespace k25
