// A replay report's results as predict reads them: mode precedence, sizes, per-op figures.
#include "predict/report_phases.hpp"

#include "predict/kind_names.hpp"

namespace k25 {

std::optional<TimingMode> first_measured_mode(const std::vector<PhaseResult>& results, Phase phase,
                                              std::initializer_list<TimingMode> order) {
  for (const TimingMode mode : order)
    for (const PhaseResult& r : results)
      if (r.phase == phase && r.mode == mode) return mode;
  return std::nullopt;
}

double op_size_bytes(const PhaseResult& r) {
  return r.per_rank_bytes() ? r.bytes_per_rank_mean : static_cast<double>(r.bytes_per_op);
}

std::string phase_name(const PhaseResult& r) {
  if (r.phase == Phase::dispatch || r.phase == Phase::combine) return enum_name(r.phase);
  return kind_title(normalized_kind(enum_name(r.kind())));
}

AltCurve phase_curve_key(const PhaseResult& r) {
  AltCurve key;
  key.kind = normalized_kind(enum_name(r.kind()));
  key.name = phase_name(r);
  key.dtype = normalized_dtype(enum_name(r.dtype));
  return key;
}

AltPoint burst_op_point(const PhaseResult& r) {
  const double ops = r.ops_per_step > 0 ? r.ops_per_step : 1;
  return {op_size_bytes(r), r.step_us.p50 / ops, r.step_us.p90 / ops};
}

std::optional<AltPoint> decode_op_point(const PhaseResult& r) {
  if (r.mode != TimingMode::decode || !r.decode) return std::nullopt;
  const double ops = r.ops_per_step > 0 ? r.ops_per_step : 1;
  return AltPoint{op_size_bytes(r), r.decode->comm_us.p50 / ops, r.decode->comm_us.p90 / ops};
}

}  // namespace k25
