// capture.json through its one document module (analysis/capture_document.hpp), on files the capture command
// wrote: read back whole (to_json of what was read is the file), every member the writer writes is one the
// reader needs (a member gone from the file fails every reader, naming it), each reader of capture.json
// (predict's base, --gaps-from) reads it, an older version is read with what it has, a newer one refused.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../analysis/temp_dir.hpp"
#include "analysis/capture_document.hpp"
#include "analysis/gaps_from_capture.hpp"
#include "app/capture_command.hpp"
#include "common/error.hpp"
#include "predict/capture_base_reader.hpp"

using namespace k25;
using Catch::Matchers::Contains;

namespace {

std::string source(const std::string& path) {
  return std::string(K25_SOURCE_DIR) + "/" + path;
}

// capture.json as `k25comm capture INPUTS --model smoke.yaml [--replay/--serve pcie-report.json]` writes it.
nlohmann::json written_capture(const test::TempDir& dir, const std::vector<std::string>& inputs,
                               bool beside) {
  CaptureOptions options;
  options.inputs = inputs;
  options.model_config = source("configs/smoke.yaml");
  options.kernel_classes = {source("data/kernel-classes.yaml")};
  if (beside) {
    options.replay_path = source("tests/analysis/data/pcie-report.json");
    options.serve_path = source("tests/analysis/data/pcie-report.json");
  }
  options.out_dir = (dir.path() / "capture").string();
  options.plots = false;
  std::ostringstream out;
  REQUIRE(run_capture_command(options, out) == 0);
  return nlohmann::json::parse(test::read_text(options.out_dir + "/capture.json"));
}

nlohmann::json trace_capture(const test::TempDir& dir) {
  return written_capture(dir, {std::string(K25_TRACE_FIXTURES) + "/sglang-c10d-tp2"}, true);
}

// Every member of `doc` ("trace.join.groups[0].transfer_us"), objects walked whole and each array's first
// item; the members of maps whose keys are data (a communicator's ranks' hosts, its timing sources), of the
// tool (report.json's ToolInfo) and of the kernel classes' table (written from analysis/kernel_class.hpp,
// never read back) are not the document's own.
void each_member(const nlohmann::json& doc, const nlohmann::json::json_pointer& at, const std::string& where,
                 const std::function<void(const nlohmann::json::json_pointer&, const std::string&)>& visit) {
  if (where == "tool" || where == "trace.kernel_classes" || where.ends_with("rank_hosts") ||
      where.ends_with("timing_sources"))
    return;
  if (doc.is_array() && !doc.empty()) each_member(doc[0], at / 0, where + "[0]", visit);
  if (!doc.is_object()) return;
  for (const auto& [key, value] : doc.items()) {
    const std::string member = where.empty() ? key : where + "." + key;
    visit(at / key, member);
    each_member(value, at / key, member, visit);
  }
}

}  // namespace

TEST_CASE("capture.json: the file the capture command wrote reads back whole, and every reader reads it") {
  const test::TempDir dir;
  const nlohmann::json written = trace_capture(dir);
  REQUIRE(written.at("schema_version") == kCaptureSchemaVersion);
  const CaptureResult read = read_capture_document(written, "capture.json");
  CHECK(nlohmann::json(read) == written);
  REQUIRE(read.trace.present);
  REQUIRE_FALSE(read.trace.join.empty());
  REQUIRE(read.replay);
  REQUIRE_FALSE(read.attribution.empty());

  // --gaps-from: the decode mode's shape of each joined decode group.
  const std::vector<CapturedShape> shapes = shapes_from_capture(written, "capture.json");
  REQUIRE_FALSE(shapes.empty());
  for (const CapturedShape& shape : shapes) CHECK(shape.rank_arrival_us.size() == 2);

  // predict's base: a level per decode group over all ranks, its kinds with the join's split of each op.
  const BaseDocument base = base_from_capture(written, "capture.json");
  CHECK(base.ranks == 2);
  CHECK_FALSE(base.shape.empty());
  std::size_t decode_groups = 0;
  for (const TraceStepGroup& g : read.trace.groups) decode_groups += g.phase == "decode" && !g.rank ? 1 : 0;
  REQUIRE(base.levels.size() == decode_groups);
  const TraceStepGroup& first =
      *std::find_if(read.trace.groups.begin(), read.trace.groups.end(),
                    [](const TraceStepGroup& g) { return g.phase == "decode" && !g.rank; });
  CHECK(base.levels[0].batch == first.batch);
  REQUIRE(base.levels[0].kinds.size() == first.kinds.size());
  CHECK(base.levels[0].kinds[0].comm_us == first.kinds[0].merged_us.p50);
  CHECK(base.levels[0].kinds[0].join.has_value());
}

TEST_CASE("capture.json: an Inspector capture with --emit-config reads back whole") {
  const test::TempDir dir;
  const nlohmann::json written = written_capture(dir, {source("tests/capture/data/tp2-v40")}, false);
  const CaptureResult read = read_capture_document(written, "capture.json");
  CHECK(nlohmann::json(read) == written);
  CHECK_FALSE(read.trace.present);
  REQUIRE(read.communicators.size() == 1);
  CHECK(read.communicators[0].step.found);
  CHECK_THROWS_WITH(base_from_capture(written, "capture.json"), Contains("a capture without a trace step"));
}

TEST_CASE("capture.json: a member the writer does not write fails every reader, naming it") {
  const test::TempDir dir;
  const nlohmann::json written = trace_capture(dir);
  std::size_t members = 0;
  const auto without_it_fails = [&](const nlohmann::json::json_pointer& at, const std::string& member) {
    INFO(member);
    ++members;
    nlohmann::json without = written;
    without[at.parent_pointer()].erase(at.back());
    const std::string name =
        member.substr(member.rfind('.') == std::string::npos ? 0 : member.rfind('.') + 1);
    CHECK_THROWS_AS(read_capture_document(without, "capture.json"), UsageError);
    CHECK_THROWS_WITH(read_capture_document(without, "capture.json"), Contains(name));
  };
  each_member(written, nlohmann::json::json_pointer(), "", without_it_fails);
  CHECK(members > 200);
  // Each reader, on one member renamed: the join's transfer after the last rank's start.
  nlohmann::json renamed = written;
  nlohmann::json& join = renamed["trace"]["join"]["groups"][0];
  join["transfer_usec"] = join["transfer_us"];
  join.erase("transfer_us");
  const std::string why = "capture.json: capture.json trace.join.groups[0]: no member 'transfer_us'";
  CHECK_THROWS_WITH(base_from_capture(renamed, "capture.json"), why);
  CHECK_THROWS_WITH(shapes_from_capture(renamed, "capture.json"), why);
}

TEST_CASE("capture.json: an older version is read with what it has, a newer one refused") {
  const test::TempDir dir;
  nlohmann::json older = trace_capture(dir);
  older["schema_version"] = 2;
  for (nlohmann::json& g : older["trace"]["join"]["groups"]) g.erase("transfer_us");
  older["capture"].erase("model_config");
  const CaptureResult read = read_capture_document(older, "old/capture.json");
  CHECK(read.schema_version == 2);
  CHECK_FALSE(read.trace.join.at(0).transfer_us);
  const BaseDocument base = base_from_capture(older, "old/capture.json");
  CHECK_FALSE(base.levels.at(0).kinds.at(0).join);
  CHECK_THAT(base.notes.back(), Contains("no transfer_us (an older k25comm capture)"));

  nlohmann::json newer = older;
  newer["schema_version"] = kCaptureSchemaVersion + 1;
  CHECK_THROWS_WITH(
      read_capture_document(newer, "new/capture.json"),
      Contains("new/capture.json: capture.json schema_version 4 is newer than this k25comm reads (3)"));
  CHECK_THROWS_WITH(
      read_capture_document(nlohmann::json::parse(R"({"capture": 1, "communicators": []})"), "x.json"),
      Contains("x.json: capture.json "));
  CHECK_THROWS_WITH(read_capture_document(nlohmann::json::parse(R"({"results": []})"), "r.json"),
                    "r.json: not a capture.json (a JSON object with \"capture\" and \"communicators\")");
}
