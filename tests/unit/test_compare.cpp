// Run-to-run compare: verdicts on crafted pairs (regression, noise-only change, improvement), exit codes,
// labels, and incompatible inputs.
#include <catch2/catch.hpp>

#include <sstream>

#include "../analysis/report_fixtures.hpp"
#include "../analysis/temp_dir.hpp"
#include "analysis/compare.hpp"
#include "common/error.hpp"

using namespace k25;
using namespace k25::test;

namespace {

RunReport report_with_step(double step_p50_us, double spread, const std::string& kind = "pcie") {
  RunReport r = empty_report("kimi-k2.5", kind);
  r.results = {allreduce_result(1, TimingMode::eager, step_p50_us, spread),
               allreduce_result(16, TimingMode::eager, 10000.0, 0.02)};
  r.serve.ran = true;
  r.serve.levels = {serve_level(1, 12.4, 79.0)};
  return r;
}

const ComparedFigure& figure(const Comparison& c, const std::string& point, const std::string& name) {
  for (const ComparedFigure& f : c.figures) {
    if (f.point == point && f.figure == name) return f;
  }
  FAIL("no figure " << point << " " << name);
  throw std::logic_error("unreachable");
}

int compare_files(const RunReport& base, const RunReport& next, std::string& output, double threshold = 5.0) {
  TempDir dir;
  CompareOptions options;
  options.base_path = dir.write("base.json", nlohmann::json(base).dump());
  options.new_path = dir.write("new.json", nlohmann::json(next).dump());
  options.threshold_pct = threshold;
  std::ostringstream out;
  const int code = run_compare(options, out);
  output = out.str();
  return code;
}

}  // namespace

TEST_CASE("a clear slowdown beyond threshold and spread is a regression: exit 1", "[compare]") {
  const RunReport base = report_with_step(6810.0, 0.02);
  const RunReport next = report_with_step(6810.0 * 1.20, 0.02);
  const Comparison c = compare_reports(base, next, 5.0);
  const ComparedFigure& f = figure(c, "allreduce T=1 eager", "step p50 us");
  CHECK(f.ratio == Approx(1.2));
  CHECK(f.spread == Approx(0.02));
  CHECK(f.verdict == Verdict::regression);
  CHECK(figure(c, "allreduce T=16 eager", "step p50 us").verdict == Verdict::same);
  CHECK(c.has_regression());

  std::string output;
  CHECK(compare_files(base, next, output) == 1);
  CHECK(output.find("REGRESSION") != std::string::npos);
}

TEST_CASE("a change beyond the threshold but within the runs' own spread is noise: exit 0", "[compare]") {
  const RunReport base = report_with_step(6810.0, 0.20);  // p90 is 20 % above p50
  const RunReport next = report_with_step(6810.0 * 1.10, 0.20);
  const Comparison c = compare_reports(base, next, 5.0);
  CHECK(figure(c, "allreduce T=1 eager", "step p50 us").verdict == Verdict::noisy);
  CHECK_FALSE(c.has_regression());
  std::string output;
  CHECK(compare_files(base, next, output) == 0);
  CHECK(output.find("noisy") != std::string::npos);
  CHECK(output.find("no regression") != std::string::npos);
}

TEST_CASE("a change within the threshold is the same; a speed-up is an improvement", "[compare]") {
  const RunReport base = report_with_step(6810.0, 0.01);
  CHECK(figure(compare_reports(base, report_with_step(6810.0 * 1.03, 0.01), 5.0), "allreduce T=1 eager",
               "step p50 us")
            .verdict == Verdict::same);
  const Comparison faster = compare_reports(base, report_with_step(6810.0 * 0.5, 0.01), 5.0);
  CHECK(figure(faster, "allreduce T=1 eager", "step p50 us").verdict == Verdict::improved);
  CHECK_FALSE(faster.has_regression());
  std::string output;
  CHECK(compare_files(base, report_with_step(6810.0 * 0.5, 0.01), output) == 0);
  CHECK(output.find("improved") != std::string::npos);
  // The threshold decides: a 3 % slowdown is a regression at 1 %.
  CHECK(compare_files(base, report_with_step(6810.0 * 1.03, 0.01), output, 1.0) == 1);
}

TEST_CASE("serve levels are matched by concurrency: TPOT up and throughput down are regressions",
          "[compare]") {
  RunReport base = report_with_step(6810.0, 0.02);
  RunReport next = base;
  next.serve.levels = {serve_level(1, 15.0, 65.0), serve_level(2, 13.0, 150.0)};
  const Comparison c = compare_reports(base, next, 5.0);
  CHECK(figure(c, "serve C=1", "TPOT p50 ms").verdict == Verdict::regression);
  CHECK(figure(c, "serve C=1", "output tok/s").verdict == Verdict::regression);
  CHECK(figure(c, "serve C=2", "TPOT p50 ms").verdict == Verdict::only_new);
  CHECK(c.has_regression());
}

TEST_CASE("wrong results in the new run fail the comparison", "[compare]") {
  const RunReport base = report_with_step(6810.0, 0.02);
  RunReport next = base;
  next.results[1].wrong = 3;
  const Comparison c = compare_reports(base, next, 5.0);
  CHECK(figure(c, "allreduce T=16 eager", "step p50 us").verdict == Verdict::wrong);
  CHECK(c.has_regression());
}

TEST_CASE("each side is labelled with its topology kind, so PCIe vs NVLink reads naturally", "[compare]") {
  const RunReport pcie = report_with_step(6810.0, 0.02, "pcie");
  RunReport nvlink = report_with_step(900.0, 0.02, "nvlink");
  nvlink.run.hosts = {"node-b"};
  std::string output;
  CHECK(compare_files(pcie, nvlink, output) == 0);
  CHECK(output.find("base (pcie)") != std::string::npos);
  CHECK(output.find("new (nvlink)") != std::string::npos);
  CHECK(output.find("base: pcie, 8 ranks, nccl, node-a") != std::string::npos);
  CHECK(output.find("new:  nvlink, 8 ranks, nccl, node-b") != std::string::npos);
  CHECK(output.find("topologies differ") != std::string::npos);
}

TEST_CASE("incompatible inputs are a usage error (exit 2)", "[compare]") {
  const RunReport base = report_with_step(6810.0, 0.02);
  TempDir dir;
  CompareOptions options;
  options.base_path = dir.write("base.json", nlohmann::json(base).dump());
  std::ostringstream out;

  SECTION("another schema_version") {
    nlohmann::json future = base;
    future["schema_version"] = 2;
    options.new_path = dir.write("new.json", future.dump());
    CHECK_THROWS_WITH(run_compare(options, out), Catch::Contains("schema_version 2 is not supported"));
  }
  SECTION("another model") {
    options.new_path = dir.write("new.json", nlohmann::json(report_with_step(6810.0, 0.02)).dump());
    RunReport other = report_with_step(6810.0, 0.02);
    other.run.config["model"]["name"] = "deepseek-v3";
    options.new_path = dir.write("new.json", nlohmann::json(other).dump());
    CHECK_THROWS_WITH(run_compare(options, out), Catch::Contains("deepseek-v3"));
  }
  SECTION("unreadable file") {
    options.new_path = (dir.path() / "missing.json").string();
    CHECK_THROWS_AS(run_compare(options, out), UsageError);
  }
  SECTION("not JSON") {
    options.new_path = dir.write("new.json", "hello\nworld\n");
    CHECK_THROWS_AS(run_compare(options, out), UsageError);
  }
  SECTION("nothing in common") {
    RunReport other = empty_report();
    other.results = {allreduce_result(64, TimingMode::graph, 100.0)};
    options.new_path = dir.write("new.json", nlohmann::json(other).dump());
    CHECK_THROWS_WITH(run_compare(options, out), Catch::Contains("in common"));
  }
  try {
    if (!options.new_path.empty()) run_compare(options, out);
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::bad_usage);
  }
}
