// The inputs predict's tests share: the fixtures' paths, the capture base, alternatives read from files or
// from CSV text, and replay results built by hand (every figure worked out by hand in the tests).
#pragma once

#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "analysis/phase_result.hpp"
#include "predict/input_formats.hpp"
#include "predict/step_prediction.hpp"

namespace k25::predict_test {

inline std::string data(const std::string& name) {
  return std::string(K25_SOURCE_DIR) + "/tests/predict/data/" + name;
}

inline std::string nccl_tests(const std::string& name) {
  return data("nccl-tests/" + name);
}

// The capture fixture: decode batch 1, wall 10000 us (p90 11000), TPOT 12 ms; AllReduce 100 x 14336 B, 4000
// us merged of which 1000 us overlapped (0.25): 40 us per op, of which the join's transfer after the last
// rank's start 25 us, so a wait of 15 us.
inline const BaseDocument& capture_base() {
  static const BaseDocument base = read_base_file(data("capture.json"));
  return base;
}

inline AltDocument alt_file(const std::string& path, const std::string& label = "", int base_ranks = 2,
                            const std::string& kind = "") {
  AltReadContext context;
  context.base_ranks = base_ranks;
  context.kind = kind;
  return read_alt_file(path, label, context);
}

// A CSV written to a temporary file, read as an alternative.
inline AltDocument alt_csv(const std::string& text, const std::string& label, int base_ranks = 2) {
  const std::string path = std::string(K25_BINARY_DIR) + "/" + label + ".csv";
  std::ofstream(path) << text;
  return alt_file(path, label, base_ranks);
}

inline PhaseResult result(Phase phase, TimingMode mode, int tokens, double op_us, double step_us) {
  PhaseResult r;
  r.phase = phase;
  r.mode = mode;
  r.tokens = r.requested_tokens = tokens;
  r.ops_per_step = 100;
  r.bytes_per_op = 14336ULL * static_cast<unsigned>(tokens);
  r.op_us.p50 = op_us;
  r.op_us.p90 = op_us * 1.5;
  r.step_us.p50 = step_us;
  r.step_us.p90 = step_us + 100;
  r.ranks = 2;
  return r;
}

inline PhaseResult decode_result(int tokens, double comm_us, const std::string& shape) {
  PhaseResult decode = result(Phase::allreduce, TimingMode::decode, tokens, 35, comm_us + 2000);
  decode.decode = DecodeFigures{};
  decode.decode->comm_us.p50 = comm_us;
  decode.decode->comm_us.p90 = comm_us + 200;
  decode.decode->shape = shape;
  return decode;
}

// Lines (notes) as one text, a line each: to find a note among them.
inline std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

inline const StepEstimate& estimate(const LevelPrediction& l, PredictMethod method) {
  const StepEstimate* e = l.estimate(method);
  REQUIRE(e != nullptr);
  return *e;
}

}  // namespace k25::predict_test
