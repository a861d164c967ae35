// Parsing of step-mark names: vLLM's, SGLang's and torch's.
#include "capture/model/step_marks.hpp"

#include <charconv>

namespace k25 {
namespace {

// Reads a decimal number at the start of `text` (which it advances); nullopt when there is none.
std::optional<int> number(std::string_view& text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end == text.data() || value < 0) return std::nullopt;
  text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  return value;
}

bool consume(std::string_view& text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return false;
  text.remove_prefix(prefix.size());
  return true;
}

// Skips a parenthesised group "(...)" if one starts here; returns the number it opens with ("(888_788544)":
// 888), nullopt where there is no group or no number.
std::optional<int> skip_group(std::string_view& text) {
  if (!text.starts_with('(')) return std::nullopt;
  std::string_view inside = text.substr(1);
  const std::optional<int> first = number(inside);
  const std::size_t close = text.find(')');
  text.remove_prefix(close == std::string_view::npos ? text.size() : close + 1);
  return first;
}

ParsedStepMark from_counts(MarkFamily family, int new_requests, int running, std::optional<int> tokens) {
  ParsedStepMark mark;
  mark.family = family;
  if (new_requests == 0 && running > 0) {
    mark.phase = StepPhase::decode;
    mark.batch = running;
    mark.tokens = tokens ? tokens : std::optional<int>(running);
  } else if (running == 0 && new_requests > 0) {
    mark.phase = StepPhase::prefill;
    mark.batch = new_requests;
    mark.tokens = tokens;
  } else {
    mark.phase = new_requests + running > 0 ? StepPhase::mixed : StepPhase::unknown;
    mark.batch = new_requests + running;
    mark.tokens = tokens;
  }
  return mark;
}

std::optional<ParsedStepMark> parse_vllm(std::string_view text) {
  if (!consume(text, "execute_")) return std::nullopt;
  if (consume(text, "new_")) {  // execute_new_{n}_cached_{c}
    const auto n = number(text);
    if (!n || !consume(text, "_cached_")) return std::nullopt;
    const auto c = number(text);
    if (!c) return std::nullopt;
    return from_counts(MarkFamily::vllm, *n, *c, std::nullopt);
  }
  std::optional<int> tokens;
  if (!text.starts_with("context_")) {  // execute_{T}_context_...
    tokens = number(text);
    if (!tokens || !consume(text, "_")) return std::nullopt;
  }
  if (!consume(text, "context_")) return std::nullopt;
  const auto n = number(text);
  if (!n) return std::nullopt;
  const std::optional<int> context_tokens = skip_group(text);
  if (!consume(text, "_generation_")) return std::nullopt;
  const auto m = number(text);
  if (!m) return std::nullopt;
  // execute_context_{n}({context tokens}...)_generation_{m}({generation tokens}): the step's tokens.
  const std::optional<int> generation_tokens = skip_group(text);
  if (!tokens && (context_tokens || generation_tokens))
    tokens = context_tokens.value_or(0) + generation_tokens.value_or(0);
  return from_counts(MarkFamily::vllm, *n, *m, tokens);
}

std::optional<ParsedStepMark> parse_sglang(std::string_view text) {
  if (!consume(text, "step[")) return std::nullopt;
  ParsedStepMark mark;
  mark.family = MarkFamily::sglang;
  if (consume(text, "DECODE")) {
    mark.phase = StepPhase::decode;
  } else if (consume(text, "EXTEND") || consume(text, "PREFILL")) {
    mark.phase = StepPhase::prefill;
  } else if (consume(text, "MIXED")) {
    mark.phase = StepPhase::mixed;
  }
  while (!text.empty() && text.front() != ']') {
    if (consume(text, " bs=")) {
      mark.batch = number(text);
    } else if (consume(text, " toks=")) {
      mark.tokens = number(text);
    } else {
      text.remove_prefix(1);
    }
  }
  if (mark.phase == StepPhase::decode && mark.batch && !mark.tokens) mark.tokens = mark.batch;
  return mark;
}

}  // namespace

const char* to_string(StepPhase phase) {
  switch (phase) {
    case StepPhase::decode:
      return "decode";
    case StepPhase::prefill:
      return "prefill";
    case StepPhase::mixed:
      return "mixed";
    case StepPhase::unknown:
      break;
  }
  return "unknown";
}

int phase_order(std::string_view phase) {
  return phase == "decode" ? 0 : phase == "prefill" ? 1 : phase == "mixed" ? 2 : 3;
}

const char* to_string(MarkFamily family) {
  switch (family) {
    case MarkFamily::vllm:
      return "vLLM execute_model";
    case MarkFamily::sglang:
      return "SGLang step";
    case MarkFamily::optimizer_step:
      return "Optimizer.step iteration";
    case MarkFamily::module_call:
      return "nn.Module call iteration";
    case MarkFamily::profiler_step:
      break;
  }
  return "ProfilerStep";
}

bool may_be_step_mark(std::string_view name) {
  return name.starts_with("execute_") || name.starts_with("step[") || name.starts_with("ProfilerStep#");
}

std::optional<ParsedStepMark> parse_step_mark(std::string_view name) {
  if (name.starts_with("execute_")) return parse_vllm(name);
  if (name.starts_with("step[")) return parse_sglang(name);
  if (name.starts_with("ProfilerStep#")) {
    std::string_view rest = name.substr(13);
    if (!number(rest) || !rest.empty()) return std::nullopt;
    return ParsedStepMark{};
  }
  ParsedStepMark iteration;
  if (name.starts_with(kOptimizerStepPrefix)) {
    iteration.family = MarkFamily::optimizer_step;
    return iteration;
  }
  if (name.starts_with(kModuleCallPrefix)) {
    iteration.family = MarkFamily::module_call;
    return iteration;
  }
  return std::nullopt;
}

}  // namespace k25
