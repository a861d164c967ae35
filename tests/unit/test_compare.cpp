// Run-to-run compare: verdicts on crafted pairs (regression, noise-only change, improvement, the ratio
// ceiling), setup fields that make runs not comparable, missing points, exit codes, labels, CSV and JSON.
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

int compare_files(const RunReport& base, const RunReport& next, std::string& output, double threshold = 5.0,
                  CompareOptions options = {}) {
  TempDir dir;
  options.base_path = dir.write("base.json", nlohmann::json(base).dump());
  options.new_path = dir.write("new.json", nlohmann::json(next).dump());
  options.rules.threshold_pct = threshold;
  std::ostringstream out;
  const int code = run_compare(options, out);
  output = out.str();
  return code;
}

CompareRules rules(double threshold_pct = 5.0) {
  CompareRules r;
  r.threshold_pct = threshold_pct;
  return r;
}

// The exit code and message of a comparison that throws, or 0 / 1 and the output.
std::pair<int, std::string> compare_outcome(const RunReport& base, const RunReport& next,
                                            CompareOptions options = {}) {
  try {
    std::string output;
    const int code = compare_files(base, next, output, options.rules.threshold_pct, options);
    return {code, output};
  } catch (const Error& e) {
    return {static_cast<int>(e.code()), e.what()};
  }
}

}  // namespace

TEST_CASE("a clear slowdown beyond threshold and spread is a regression: exit 1", "[compare]") {
  const RunReport base = report_with_step(6810.0, 0.02);
  const RunReport next = report_with_step(6810.0 * 1.20, 0.02);
  const Comparison c = compare_reports(base, next, rules());
  const ComparedFigure& f = figure(c, "allreduce T=1 eager", "step p50 us");
  CHECK(*f.ratio == Approx(1.2));
  CHECK(f.spread == Approx(0.02));
  CHECK(f.verdict == Verdict::regression);
  CHECK(figure(c, "allreduce T=16 eager", "step p50 us").verdict == Verdict::same);
  CHECK(c.failed());

  std::string output;
  CHECK(compare_files(base, next, output) == 1);
  CHECK(output.find("REGRESSION") != std::string::npos);
}

TEST_CASE("a change beyond the threshold but within the runs' own spread is noise: exit 0", "[compare]") {
  const RunReport base = report_with_step(6810.0, 0.20);  // p90 is 20 % above p50
  const RunReport next = report_with_step(6810.0 * 1.10, 0.20);
  const Comparison c = compare_reports(base, next, rules());
  CHECK(figure(c, "allreduce T=1 eager", "step p50 us").verdict == Verdict::noisy);
  CHECK_FALSE(c.failed());
  std::string output;
  CHECK(compare_files(base, next, output) == 0);
  CHECK(output.find("noisy") != std::string::npos);
  CHECK(output.find("no regression") != std::string::npos);
}

TEST_CASE("a change within the threshold is the same, a speed-up is an improvement", "[compare]") {
  const RunReport base = report_with_step(6810.0, 0.01);
  CHECK(figure(compare_reports(base, report_with_step(6810.0 * 1.03, 0.01), rules()), "allreduce T=1 eager",
               "step p50 us")
            .verdict == Verdict::same);
  const Comparison faster = compare_reports(base, report_with_step(6810.0 * 0.5, 0.01), rules());
  CHECK(figure(faster, "allreduce T=1 eager", "step p50 us").verdict == Verdict::improved);
  CHECK_FALSE(faster.failed());
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
  const Comparison c = compare_reports(base, next, rules());
  CHECK(figure(c, "serve C=1", "TPOT p50 ms").verdict == Verdict::regression);
  CHECK(figure(c, "serve C=1", "steady output tok/s").verdict == Verdict::regression);
  CHECK(figure(c, "serve C=2", "TPOT p50 ms").verdict == Verdict::only_new);
  CHECK(c.failed());
}

TEST_CASE("wrong results in the new run fail the comparison", "[compare]") {
  const RunReport base = report_with_step(6810.0, 0.02);
  RunReport next = base;
  next.results[1].wrong = 3;
  const Comparison c = compare_reports(base, next, rules());
  CHECK(figure(c, "allreduce T=16 eager", "step p50 us").verdict == Verdict::wrong);
  CHECK(c.failed());
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
    future["schema_version"] = 99;
    options.new_path = dir.write("new.json", future.dump());
    CHECK_THROWS_WITH(run_compare(options, out), Catch::Contains("schema_version 99 is not supported"));
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

TEST_CASE("a bf16 base against an fp32 run is not comparable: exit 2 naming dtype, unless allowed",
          "[compare]") {
  const RunReport base = report_with_step(6810.0, 0.02);
  RunReport next = report_with_step(6810.0 * 0.564, 0.02);
  for (PhaseResult& r : next.results) r.dtype = Dtype::fp32;
  const auto [code, message] = compare_outcome(base, next);
  CHECK(code == 2);
  CHECK(message.find("not comparable") != std::string::npos);
  CHECK(message.find(
            "dtype differs (base bf16, new fp32) at 2 points: allreduce T=1 eager, allreduce T=16 eager") !=
        std::string::npos);
  CHECK(message.find("--allow-mismatch dtype") != std::string::npos);

  CompareOptions allowed;
  allowed.rules.allow_mismatch = {"dtype"};
  const auto [allowed_code, output] = compare_outcome(base, next, allowed);
  CHECK(allowed_code == 0);
  CHECK(output.find("note: allowed: dtype differs") != std::string::npos);
  CHECK(output.find("improved") != std::string::npos);
}

TEST_CASE("2 ranks against 4, another transport or in-place: not comparable", "[compare]") {
  const RunReport base = report_with_step(6810.0, 0.02);
  SECTION("ranks") {
    RunReport next = report_with_step(9000.0, 0.02);
    for (PhaseResult& r : next.results) r.ranks = 4;
    next.run.ranks = 4;
    const auto [code, message] = compare_outcome(base, next);
    CHECK(code == 2);
    CHECK(message.find("ranks differs (base 8, new 4)") != std::string::npos);
  }
  SECTION("transport") {
    RunReport next = report_with_step(6810.0, 0.02);
    next.run.transport = "mpi";
    CHECK(compare_outcome(base, next).first == 2);
  }
  SECTION("in place, where the reports say") {
    RunReport with_flag = base, next = base;
    with_flag.run.config["sweep"]["in_place"] = false;
    next.run.config["sweep"]["in_place"] = true;
    const auto [code, message] = compare_outcome(with_flag, next);
    CHECK(code == 2);
    CHECK(message.find("in_place differs (base false, new true)") != std::string::npos);
    CHECK(compare_outcome(base, next).first == 0);  // the base does not say: not compared
  }
  SECTION("registered buffers against unregistered ones; a report from before the flag registered none") {
    RunReport next = base;
    next.run.config["transport"]["nccl_register"] = "symmetric";
    const auto [code, message] = compare_outcome(base, next);
    CHECK(code == 2);
    CHECK(message.find("nccl_register differs (base none, new symmetric)") != std::string::npos);
    RunReport said_none = base;
    said_none.run.config["transport"]["nccl_register"] = "none";
    CHECK(compare_outcome(base, said_none).first == 0);
  }
  SECTION("device-only timing against launches the host paid for") {
    RunReport next = report_with_step(5000.0, 0.02);
    for (PhaseResult& r : next.results) r.device_only = true;
    const auto [code, message] = compare_outcome(base, next);
    CHECK(code == 2);
    CHECK(message.find("device_only differs (base false, new true)") != std::string::npos);
  }
  SECTION("serve settings") {
    RunReport with_tokens = base, next = base;
    with_tokens.serve.max_tokens = 64;
    next.serve.max_tokens = 128;
    const auto [code, message] = compare_outcome(with_tokens, next);
    CHECK(code == 2);
    CHECK(message.find("max_tokens differs (base 64, new 128) at 1 point: serve C=1") != std::string::npos);
  }
  SECTION("an unknown field to allow is a usage error") {
    CompareOptions options;
    options.rules.allow_mismatch = {"colour"};
    const auto [code, message] = compare_outcome(base, base, options);
    CHECK(code == 2);
    CHECK(message.find("unknown field 'colour'") != std::string::npos);
  }
}

TEST_CASE("every setup field applies to results or to serve levels and has a unique name", "[compare]") {
  std::vector<std::string> names;
  for (const SetupField& field : setup_fields()) {
    CHECK((field.of_result || field.of_serve));
    CHECK(std::count(names.begin(), names.end(), field.name) == 0);
    names.push_back(field.name);
  }
  for (const char* expected :
       {"dtype", "ranks", "transport", "in_place", "nccl_register", "bytes", "device_only"})
    CHECK(std::count(names.begin(), names.end(), expected) == 1);
}

TEST_CASE("a point missing on either side is listed and fails the comparison", "[compare]") {
  RunReport base = report_with_step(6810.0, 0.02);
  base.results.push_back(allreduce_result(256, TimingMode::eager, 90000.0));
  const RunReport next = report_with_step(6810.0, 0.02);
  const Comparison c = compare_reports(base, next, rules());
  CHECK(figure(c, "allreduce T=256 eager", "step p50 us").verdict == Verdict::only_base);
  CHECK(c.failed());

  std::string output;
  CHECK(compare_files(base, next, output) == 1);
  CHECK(output.find("missing points: allreduce T=256 eager (base only)") != std::string::npos);
  CHECK(output.find("verdict: FAILED") != std::string::npos);
  CHECK(output.find("no regression") == std::string::npos);
  CHECK(compare_files(next, base, output) == 1);  // missing in the base: also a failure
  CHECK(output.find("(new only)") != std::string::npos);

  CompareOptions allow;
  allow.rules.allow_missing = true;
  CHECK(compare_files(base, next, output, 5.0, allow) == 0);
  CHECK(output.find("allowed by --allow-missing") != std::string::npos);
}

TEST_CASE("a ratio beyond the ceiling is a regression whatever the spread", "[compare]") {
  // The case: ratio 2.897 with a spread of 810.9 % passed as noisy.
  const RunReport base = report_with_step(1000.0, 8.109);
  const RunReport next = report_with_step(2897.0, 8.109);
  const Comparison c = compare_reports(base, next, rules());
  const ComparedFigure& f = figure(c, "allreduce T=1 eager", "step p50 us");
  CHECK(f.spread == Approx(8.109));
  CHECK(f.verdict == Verdict::regression);
  CHECK(f.beyond_max_ratio);
  std::string output;
  CHECK(compare_files(base, next, output) == 1);
  CHECK(output.find("REGRESSION (beyond 1.5x)") != std::string::npos);

  CompareRules loose = rules();
  loose.max_ratio = 3.0;  // configurable: within a 3x ceiling the spread decides again
  CHECK(figure(compare_reports(base, next, loose), "allreduce T=1 eager", "step p50 us").verdict ==
        Verdict::noisy);
  // Below the ceiling, a noisy change stays noisy.
  CHECK(figure(compare_reports(base, report_with_step(1400.0, 8.109), rules()), "allreduce T=1 eager",
               "step p50 us")
            .verdict == Verdict::noisy);
}

TEST_CASE("compare --format csv and json carry every figure and the verdict", "[compare]") {
  const RunReport base = report_with_step(6810.0, 0.02);
  const RunReport next = report_with_step(6810.0 * 1.2, 0.02);
  CompareOptions csv;
  csv.format = CompareFormat::csv;
  std::string output;
  CHECK(compare_files(base, next, output, 5.0, csv) == 1);
  CHECK(output.rfind("point,figure,base,new,ratio,spread,verdict,lower_is_better,not_run\n", 0) == 0);
  CHECK(output.find("allreduce T=1 eager,step p50 us,6810.0,") != std::string::npos);
  CHECK(output.find(",REGRESSION,true,\n") != std::string::npos);

  CompareOptions json;
  json.format = CompareFormat::json;
  CHECK(compare_files(base, next, output, 5.0, json) == 1);
  const nlohmann::json doc = nlohmann::json::parse(output);
  CHECK(doc["failed"] == true);
  CHECK(doc["counts"]["REGRESSION"] == 1);
  CHECK(doc["figures"][0]["point"] == "allreduce T=1 eager");
  CHECK(doc["figures"][0]["ratio"].get<double>() == Approx(1.2));
  CHECK(doc["figures"][0]["not_run"] == "");
  CHECK(doc["max_ratio"].get<double>() == Approx(1.5));
}

TEST_CASE("timings of oversubscribed runs are reported, not judged, unless asked: compare's one rule",
          "[compare]") {
  // Issue 31 item 3: two runs of 8 ranks on 2 cores; the new one 20 % slower at T=1 and its serve level 30 %.
  const auto busy = [](double step_p50_us, double tpot_ms, int wrong) {
    RunReport r = report_with_step(step_p50_us, 0.02);
    r.run.hosts = std::vector<std::string>(8, "vm");
    r.run.host_cores = {{"vm", 2}};
    r.results[1].wrong = wrong;
    r.serve.levels = {serve_level(1, tpot_ms, 79.0)};
    return r;
  };
  const RunReport base = busy(6810.0, 12.4, 0);
  const RunReport next = busy(6810.0 * 1.20, 12.4 * 1.3, 0);
  const Comparison c = compare_reports(base, next, rules());
  CHECK(figure(c, "allreduce T=1 eager", "step p50 us").verdict == Verdict::not_judged);
  CHECK(*figure(c, "allreduce T=1 eager", "step p50 us").ratio == Approx(1.2));
  CHECK(figure(c, "allreduce T=16 eager", "step p50 us").verdict == Verdict::same);
  CHECK(figure(c, "serve C=1", "TPOT p50 ms").verdict == Verdict::not_judged);
  CHECK(c.count(Verdict::regression) == 0);
  CHECK_FALSE(c.failed());
  std::string output;
  CHECK(compare_files(base, next, output) == 0);
  CHECK(output.find("REGRESSION") == std::string::npos);
  CHECK(output.find("not judged (oversubscribed)") != std::string::npos);
  CHECK(output.find("verdict: no regression (2 same, 0 noisy, 0 improved, 0 unmatched, 2 not judged: "
                    "oversubscribed)") != std::string::npos);
  CHECK(output.find("timings are reported, not judged") != std::string::npos);
  CHECK(comparison_json(c)["counts"]["not judged (oversubscribed)"] == 2);

  // --judge-oversubscribed judges them: a regression, exit 1.
  CompareRules judged = rules();
  judged.judge_oversubscribed = true;
  CHECK(compare_reports(base, next, judged).count(Verdict::regression) == 2);
  CompareOptions options;
  options.rules.judge_oversubscribed = true;
  CHECK(compare_files(base, next, output, 5.0, options) == 1);
  // Wrong results still fail.
  CHECK(compare_reports(base, busy(6810.0, 12.4, 3), rules()).failed());
}
