// Decode results set against the eager (back-to-back) result of the same point.
#include "analysis/join_cost.hpp"

namespace k25 {
namespace {

const PhaseResult* eager_twin(const std::vector<PhaseResult>& results, const PhaseResult& decode) {
  for (const PhaseResult& r : results)
    if (r.mode == TimingMode::eager && r.phase == decode.phase && r.kind() == decode.kind() &&
        r.tokens == decode.tokens)
      return &r;
  return nullptr;
}

std::optional<double> ratio(double numerator, double denominator) {
  if (!(denominator > 0)) return std::nullopt;
  return numerator / denominator;
}

}  // namespace

void fill_join_cost(PhaseResult& decode, const std::vector<PhaseResult>& others) {
  if (!decode.decode) return;
  decode.decode->join_cost.reset();
  decode.decode->comm_over_back_to_back.reset();
  const PhaseResult* eager = eager_twin(others, decode);
  if (eager == nullptr) return;
  decode.decode->join_cost = ratio(decode.op_us.p50, eager->op_us.p50);
  decode.decode->comm_over_back_to_back = ratio(decode.decode->comm_us.p50, eager->step_us.p50);
}

void fill_join_costs(std::vector<PhaseResult>& results) {
  for (PhaseResult& r : results) fill_join_cost(r, results);
}

}  // namespace k25
