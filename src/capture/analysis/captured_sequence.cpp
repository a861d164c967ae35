// Turns the captured decode steps into model.sequence entries: per-token or fixed sizes, merged runs.
#include "capture/analysis/captured_sequence.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "capture/analysis/primary_communicator.hpp"

namespace k25 {
namespace {

std::optional<CollectiveKind> sequence_kind(const std::string& inspector_kind) {
  if (inspector_kind == "AllReduce") return CollectiveKind::allreduce;
  if (inspector_kind == "AllGather") return CollectiveKind::allgather;
  if (inspector_kind == "ReduceScatter") return CollectiveKind::reducescatter;
  return std::nullopt;
}

// One op of one step: its kind and its size as nccl-tests counts it.
struct StepOp {
  CollectiveKind kind;
  std::uint64_t bytes;
};

// "allreduce x 2, allgather x 1": a step's kinds, runs counted.
std::string describe_kinds(const std::vector<StepOp>& ops) {
  std::vector<std::string> runs;
  for (std::size_t i = 0; i < ops.size();) {
    std::size_t j = i;
    while (j < ops.size() && ops[j].kind == ops[i].kind) ++j;
    runs.push_back(fmt::format("{} x {}", to_string(ops[i].kind), j - i));
    i = j;
  }
  return fmt::format("{}", fmt::join(runs, ", "));
}

using StepOps = std::map<std::int64_t, std::vector<StepOp>>;
using CountedSteps = std::vector<std::pair<int, const std::vector<StepOp>*>>;  // (tokens, ops)

// The decode steps' ops of the chosen communicator, in sequence order; false (out.reason said) where a kind
// has no model.sequence form or no step is in the timeline.
bool decode_step_ops(const CaptureResult& capture, std::size_t chosen, const CommunicatorResult& comm,
                     StepOps& steps, CapturedSequence& out) {
  std::set<std::string> unsupported;
  for (const TimelineRow& row : capture.timelines[chosen]) {
    if (row.phase != 'd' || row.step < 0) continue;
    const std::string& name = row.kind < capture.kinds.size() ? capture.kinds[row.kind] : "?";
    const auto kind = sequence_kind(name);
    if (!kind) {
      unsupported.insert(name);
      continue;
    }
    steps[row.step].push_back({*kind, nccl_tests_bytes(*kind, row.bytes, comm.n_ranks)});
  }
  if (!unsupported.empty()) {
    out.reason = fmt::format(
        "the decode step of communicator {} holds {}, which model.sequence cannot describe (it holds allreduce, allgather and reducescatter)",
        out.communicator, fmt::join(unsupported, ", "));
    return false;
  }
  if (steps.empty()) {
    out.reason = fmt::format("communicator {}: its decode steps are not in the timeline", out.communicator);
    return false;
  }
  return true;
}

// Every step must hold the same kinds in the same order; its token count comes from its largest AllReduce.
bool count_tokens(const StepOps& steps, std::uint64_t per_token, CountedSteps& counted,
                  CapturedSequence& out) {
  const std::vector<StepOp>& first = steps.begin()->second;
  for (const auto& [index, ops] : steps) {
    const bool same = ops.size() == first.size() &&
                      std::equal(ops.begin(), ops.end(), first.begin(),
                                 [](const StepOp& a, const StepOp& b) { return a.kind == b.kind; });
    if (!same) {
      out.reason = fmt::format(
          "communicator {}: its decode steps do not all hold the same ops in the same order ({} in one, {} in another)",
          out.communicator, describe_kinds(first), describe_kinds(ops));
      return false;
    }
    std::uint64_t largest = 0;
    for (const StepOp& op : ops)
      if (op.kind == CollectiveKind::allreduce) largest = std::max(largest, op.bytes);
    if (largest == 0 || largest % per_token != 0) {
      out.reason = fmt::format(
          "communicator {}: a decode step's largest AllReduce ({} B) is not a whole number of tokens of {} B (the model's hidden size x activation bytes): is --model the served model?",
          out.communicator, largest, per_token);
      return false;
    }
    counted.emplace_back(static_cast<int>(largest / per_token), &ops);
  }
  std::set<int> token_set;
  for (const auto& [tokens, ops] : counted) token_set.insert(tokens);
  out.tokens.assign(token_set.begin(), token_set.end());
  out.steps = counted.size();
  return true;
}

// Position i of the step: per-token bytes where every step's size is tokens x the same whole number, else one
// fixed size where every step has the same; nullopt where neither.
std::optional<SequenceOp> sequence_op(const CountedSteps& counted, std::size_t i, Dtype dtype) {
  const StepOp& first = (*counted.front().second)[i];
  std::optional<std::uint64_t> per_token_bytes;
  bool scales = true, fixed = true;
  for (const auto& [tokens, ops] : counted) {
    const std::uint64_t bytes = (*ops)[i].bytes;
    const auto t = static_cast<std::uint64_t>(tokens);
    if (bytes % t != 0 || (per_token_bytes && *per_token_bytes != bytes / t)) scales = false;
    if (scales) per_token_bytes = bytes / t;
    if (bytes != first.bytes) fixed = false;
  }
  SequenceOp op;
  op.kind = first.kind;
  op.dtype = dtype;
  op.count = 1;
  if (scales && per_token_bytes && *per_token_bytes > 0)
    op.bytes_per_token = *per_token_bytes;
  else if (fixed && first.bytes > 0)
    op.bytes = first.bytes;
  else
    return std::nullopt;
  return op;
}

// The step's positions as entries, runs of equal ops merged into one with a count.
bool sequence_entries(const CountedSteps& counted, Dtype dtype, CapturedSequence& out) {
  const std::vector<StepOp>& first = *counted.front().second;
  std::vector<SequenceOp> entries;
  for (std::size_t i = 0; i < first.size(); ++i) {
    const std::optional<SequenceOp> op = sequence_op(counted, i, dtype);
    if (!op) {
      out.reason = fmt::format(
          "communicator {}: op {} of the step ({}) neither scales with the step's tokens nor keeps one size",
          out.communicator, i + 1, to_string(first[i].kind));
      return false;
    }
    if (!entries.empty() && entries.back().kind == op->kind && entries.back().bytes == op->bytes &&
        entries.back().bytes_per_token == op->bytes_per_token && entries.back().dtype == op->dtype)
      ++entries.back().count;
    else
      entries.push_back(*op);
  }
  out.ops = std::move(entries);
  return true;
}

}  // namespace

CapturedSequence captured_sequence(const CaptureResult& capture, Dtype dtype) {
  CapturedSequence out;
  if (!capture.model) {
    out.reason = "the token count of a step needs the model's bytes per token (--model CONFIG)";
    return out;
  }
  // The communicator with the most decode steps, as the attribution takes it.
  const CommunicatorResult* primary = primary_communicator(capture);
  const auto chosen = static_cast<std::size_t>(primary - capture.communicators.data());
  if (primary == nullptr || chosen >= capture.timelines.size()) {
    out.reason = "no communicator holds a decode step (capture.md says why none was found)";
    return out;
  }
  out.communicator = comm_label(*primary);
  out.ranks = primary->n_ranks;
  StepOps steps;
  CountedSteps counted;
  if (!decode_step_ops(capture, chosen, *primary, steps, out) ||
      !count_tokens(steps, capture.model->bytes_per_token(), counted, out) ||
      !sequence_entries(counted, dtype, out))
    return out;
  if (out.tokens.size() == 1)
    out.notes.push_back(fmt::format(
        "every decode step seen has {} token(s): sizes that divide by it are taken to scale with tokens",
        out.tokens.front()));
  out.notes.push_back(fmt::format(
      "the Inspector does not record element types: every op is {} (the model's activation dtype)",
      to_string(dtype)));
  return out;
}

}  // namespace k25
