// libFuzzer target: the NCCL Inspector reader behind `k25comm capture`, then what the command does with what
// it read (joins, step detection, statistics, replay and attribution, capture.json/capture.md/CSV rendering);
// bad input must end in a k25::Error.
#include <cstddef>
#include <cstdint>
#include <string>

#include "capture/analysis/capture_analysis.hpp"
#include "capture/analysis/replay_comparison.hpp"
#include "capture/readers/inspector_reader.hpp"
#include "capture/render/capture_csv.hpp"
#include "capture/render/capture_markdown.hpp"
#include "common/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    k25::InspectorReader reader;
    reader.add_text(text, "fuzz.log");
    const k25::InspectorCapture capture = reader.finish();
    k25::CaptureSettings settings;
    settings.model = k25::CaptureModel{"smoke", 256, 2, 8, "4 layers x 2 AllReduces"};
    for (const bool with_model : {false, true}) {
      k25::CaptureResult result =
          k25::analyze_capture(capture, with_model ? settings : k25::CaptureSettings{});
      k25::RunReport replay;
      k25::PhaseResult point;
      point.tokens = 1;
      point.ops_per_step = 8;
      point.bytes_per_op = 512;
      point.op_us.p50 = 10;
      point.step_us.p50 = 80;
      replay.results.push_back(point);
      result.replay = k25::compare_with_replay(result, replay, "replay.json");
      k25::ServeLevel level;
      level.concurrency = 1;
      level.completed = 1;
      level.tpot_ms = k25::Stats{};
      level.tpot_ms->p50 = 10;
      result.attribution = k25::live_attribution(result, {level}, 12.0, &replay);
      (void)nlohmann::json(result).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
      (void)k25::render_capture_markdown(result, {});
      (void)k25::render_ops_csv(result);
    }
  } catch (const k25::Error&) {
    // The documented answer to foreign or malformed input (exit 2). Anything else is a finding.
  }
  return 0;
}
