// Builds, checks and describes the replay config of `capture --emit-config`.
#include "app/replay_config_option.hpp"

#include <exception>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "capture/analysis/captured_sequence.hpp"
#include "config/config_loader.hpp"
#include "config/config_writer.hpp"
#include "plan/decode_step_plan.hpp"

namespace k25 {
namespace {

std::string describe(const SequenceOp& op) {
  const std::string size =
      op.bytes_per_token > 0 ? fmt::format("{} B/token", op.bytes_per_token) : fmt::format("{} B", op.bytes);
  return fmt::format("{} x {} {}", op.count, to_string(op.kind), size);
}

}  // namespace

ReplayConfigText replay_config_text(const CaptureResult& capture, const RunConfig& model,
                                    const std::string& model_path, const std::vector<std::string>& inputs,
                                    const std::string& out_path) {
  ReplayConfigText text;
  const CapturedSequence sequence = captured_sequence(capture, model.model.activation_dtype);
  if (sequence.ops.empty()) {
    text.reason = sequence.reason;
    return text;
  }
  RunConfig replay = model;
  replay.model.sequence = sequence.ops;
  replay.sweep.tokens = sequence.tokens;
  replay.sweep.run_allreduce = true;
  replay.sweep.run_alltoall = false;

  std::vector<std::string> entries;
  for (const SequenceOp& op : sequence.ops) entries.push_back(describe(op));
  std::string header = fmt::format(
      "Written by k25comm capture --emit-config: the decode step that a live program's NCCL issued, as the\n"
      "NCCL Inspector recorded it, for k25comm to replay op for op.\n"
      "Captured: communicator {}, {} ranks, {} decode steps, token counts {};\n"
      "from {}.\n"
      "Sequence: {}.\n"
      "Model shape and every other setting: {}, with model.sequence and sweep.tokens\n"
      "replaced and the All-to-All phase left out (the captured step holds none).\n",
      sequence.communicator, sequence.ranks, sequence.steps, fmt::join(sequence.tokens, ", "),
      fmt::join(inputs, " "), fmt::join(entries, ", "), model_path);
  for (const std::string& note : sequence.notes) header += "Note: " + note + ".\n";
  header += fmt::format("Replay: mpirun -np {} k25comm --sizes {}\n", sequence.ranks, out_path);
  text.yaml = config_to_yaml(replay, header);

  // Offered only if k25comm takes it: it loads, and every token count plans at the captured ranks.
  try {
    const RunConfig again = parse_config(text.yaml, out_path);
    validate_for_ranks(again, sequence.ranks);
    for (int tokens : again.sweep.tokens)
      (void)plan_decode_step(again.model, again.routing, again.sweep, tokens, sequence.ranks);
  } catch (const std::exception& e) {
    text.reason = fmt::format("the config built from the capture does not load back: {}", e.what());
    text.yaml.clear();
    return text;
  }
  int ops_per_step = 0;
  for (const SequenceOp& op : sequence.ops) ops_per_step += op.count;
  text.ok = true;
  text.summary = fmt::format(
      "{} ops per step ({}), token counts {}; replay: mpirun -np {} k25comm --sizes {}", ops_per_step,
      fmt::join(entries, ", "), fmt::join(sequence.tokens, ", "), sequence.ranks, out_path);
  return text;
}

}  // namespace k25
