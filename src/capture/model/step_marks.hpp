// The step marks serving engines put into their profiler traces, read from the mark's name: vLLM's
// execute_model annotation (three generations of it), SGLang's step[...] span and torch's ProfilerStep#N; and
// where a training trace has none of them, the host's iterations: the optimizer's Optimizer.step#NAME.step
// annotation, or a repeated top-level nn.Module call.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace k25 {

enum class StepPhase { decode, prefill, mixed, unknown };

const char* to_string(StepPhase phase);

// The order outputs list phases in: decode, prefill, mixed, unknown (a phase's to_string name).
int phase_order(std::string_view phase);

// Where a mark comes from; when a rank's trace holds several families, the one with the most marks is taken
// (ties in this order: the engine's marks before torch's). The host's iterations (a mark per training
// iteration that a reader makes from the optimizer's step or a repeated top-level module call, its window
// the iteration's launches on any thread) are taken only where a rank has none of the others: the
// optimizer's before the module calls.
enum class MarkFamily { vllm, sglang, profiler_step, optimizer_step, module_call };

// Whether the family's marks are the host's iterations rather than marks the program put around its steps.
inline bool is_iteration_family(MarkFamily family) {
  return family == MarkFamily::optimizer_step || family == MarkFamily::module_call;
}

// The host events that show a training iteration: torch's optimizer hook ("Optimizer.step#SGD.step") and a
// Python nn.Module call ("nn.Module: ResNet_0", profiled with stack).
inline constexpr std::string_view kOptimizerStepPrefix = "Optimizer.step#";
inline constexpr std::string_view kModuleCallPrefix = "nn.Module: ";

const char* to_string(MarkFamily family);

struct ParsedStepMark {
  MarkFamily family = MarkFamily::profiler_step;
  StepPhase phase = StepPhase::unknown;
  std::optional<int> batch;  // sequences in the step (decode: the decode batch)
  std::optional<int>
      tokens;  // tokens the step computes, where the mark says or the phase implies (decode: batch)
};

// vLLM: execute_context_{n}(..)_generation_{m}(..) and execute_{T}_context_{n}(..)_generation_{m}(..) (decode
// when n is 0, batch m; prefill when m is 0), the older execute_new_{n}_cached_{c} (n new requests, c running
// ones: decode when n is 0, batch c). SGLang: step[DECODE bs=N], step[EXTEND bs=N toks=T]. torch:
// ProfilerStep#N (no phase). The host's iterations (Optimizer.step#..., nn.Module: ...): no phase. Anything
// else: nullopt.
std::optional<ParsedStepMark> parse_step_mark(std::string_view name);

// A cheap first test for readers: whether the name can be a step mark at all.
bool may_be_step_mark(std::string_view name);

}  // namespace k25
