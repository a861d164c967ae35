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

}  // namespace

CapturedSequence captured_sequence(const CaptureResult& capture, Dtype dtype) {
  CapturedSequence out;
  if (!capture.model) {
    out.reason = "the token count of a step needs the model's bytes per token (--model CONFIG)";
    return out;
  }
  const std::uint64_t per_token = capture.model->bytes_per_token();
  // The communicator with the most decode steps, as the attribution takes it.
  const CommunicatorResult* primary = primary_communicator(capture);
  const auto chosen = static_cast<std::size_t>(primary - capture.communicators.data());
  if (primary == nullptr || chosen >= capture.timelines.size()) {
    out.reason = "no communicator holds a decode step (capture.md says why none was found)";
    return out;
  }
  const CommunicatorResult& comm = *primary;
  out.communicator = comm_label(comm);
  out.ranks = comm.n_ranks;

  // The decode steps' ops, in sequence order.
  std::map<std::int64_t, std::vector<StepOp>> steps;
  std::set<std::string> unsupported;
  for (const TimelineRow& row : capture.timelines[chosen]) {
    if (row.phase != 'd' || row.step < 0) continue;
    const std::string& name = row.kind < capture.kinds.size() ? capture.kinds[row.kind] : "?";
    const auto kind = sequence_kind(name);
    if (!kind) {
      unsupported.insert(name);
      continue;
    }
    const std::uint64_t parts =
        *kind == CollectiveKind::allreduce ? 1 : static_cast<std::uint64_t>(comm.n_ranks);
    steps[row.step].push_back({*kind, row.bytes * parts});
  }
  if (!unsupported.empty()) {
    out.reason = fmt::format(
        "the decode step of communicator {} holds {}, which model.sequence cannot describe (it holds allreduce, allgather and reducescatter)",
        out.communicator, fmt::join(unsupported, ", "));
    return out;
  }
  if (steps.empty()) {
    out.reason = fmt::format("communicator {}: its decode steps are not in the timeline", out.communicator);
    return out;
  }

  // Every step must hold the same kinds in the same order; its token count comes from its largest AllReduce.
  const std::vector<StepOp>& first = steps.begin()->second;
  std::vector<std::pair<int, const std::vector<StepOp>*>> counted;  // (tokens, ops)
  for (const auto& [index, ops] : steps) {
    const bool same = ops.size() == first.size() &&
                      std::equal(ops.begin(), ops.end(), first.begin(),
                                 [](const StepOp& a, const StepOp& b) { return a.kind == b.kind; });
    if (!same) {
      out.reason = fmt::format(
          "communicator {}: its decode steps do not all hold the same ops in the same order ({} in one, {} in another)",
          out.communicator, describe_kinds(first), describe_kinds(ops));
      return out;
    }
    std::uint64_t largest = 0;
    for (const StepOp& op : ops)
      if (op.kind == CollectiveKind::allreduce) largest = std::max(largest, op.bytes);
    if (largest == 0 || largest % per_token != 0) {
      out.reason = fmt::format(
          "communicator {}: a decode step's largest AllReduce ({} B) is not a whole number of tokens of {} B (the model's hidden size x activation bytes): is --model the served model?",
          out.communicator, largest, per_token);
      return out;
    }
    counted.emplace_back(static_cast<int>(largest / per_token), &ops);
  }
  std::set<int> token_set;
  for (const auto& [tokens, ops] : counted) token_set.insert(tokens);
  out.tokens.assign(token_set.begin(), token_set.end());
  out.steps = counted.size();

  // Each position: per-token bytes where every step's size is tokens x the same whole number, else one fixed
  // size where every step has the same, else no sequence.
  std::vector<SequenceOp> entries;
  for (std::size_t i = 0; i < first.size(); ++i) {
    std::optional<std::uint64_t> per_token_bytes;
    bool scales = true, fixed = true;
    for (const auto& [tokens, ops] : counted) {
      const std::uint64_t bytes = (*ops)[i].bytes;
      const auto t = static_cast<std::uint64_t>(tokens);
      if (bytes % t != 0 || (per_token_bytes && *per_token_bytes != bytes / t)) scales = false;
      if (scales) per_token_bytes = bytes / t;
      if (bytes != (*counted.front().second)[i].bytes) fixed = false;
    }
    SequenceOp op;
    op.kind = first[i].kind;
    op.dtype = dtype;
    op.count = 1;
    if (scales && per_token_bytes && *per_token_bytes > 0) {
      op.bytes_per_token = *per_token_bytes;
    } else if (fixed && first[i].bytes > 0) {
      op.bytes = first[i].bytes;
    } else {
      out.reason = fmt::format(
          "communicator {}: op {} of the step ({}) neither scales with the step's tokens nor keeps one size",
          out.communicator, i + 1, to_string(first[i].kind));
      return out;
    }
    if (!entries.empty() && entries.back().kind == op.kind && entries.back().bytes == op.bytes &&
        entries.back().bytes_per_token == op.bytes_per_token && entries.back().dtype == op.dtype)
      ++entries.back().count;
    else
      entries.push_back(op);
  }
  out.ops = std::move(entries);
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
