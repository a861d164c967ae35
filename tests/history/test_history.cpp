// The nightly history's pure parts on exact inputs: the judgement of a series, E-divisive change points, a
// report's rows, the store (add twice, refusals that leave it as it was), history.json's round trip and the
// OpenMetrics text. No timings.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "../analysis/temp_dir.hpp"
#include "analysis/change_points.hpp"
#include "analysis/history_judgement.hpp"
#include "analysis/report_reader.hpp"
#include "common/error.hpp"
#include "history/history_document.hpp"
#include "history/history_metrics.hpp"
#include "history/history_rows.hpp"
#include "history/history_store.hpp"
#include "history/history_verdicts.hpp"
#include "history/sqlite_handles.hpp"

using namespace k25;

namespace {

// 14 nights at 100 with at most 0.4 % between nights, each with a 2 % spread of its own.
std::vector<NightFigure> flat_nights(int count = 14) {
  std::vector<NightFigure> nights;
  for (int n = 1; n <= count; ++n) nights.push_back({100.0 * (1.0 + 0.002 * ((n * 7) % 5 - 2)), 0.02, true});
  return nights;
}

std::vector<NightVerdict> verdicts_of(const std::vector<JudgedNight>& judged) {
  std::vector<NightVerdict> out;
  for (const JudgedNight& j : judged) out.push_back(j.verdict);
  return out;
}

std::string data(const std::string& name) {
  return std::string(K25_SOURCE_DIR) + "/tests/analysis/data/" + name;
}

}  // namespace

TEST_CASE("history judgement: a 25 % step from night 9 is suspicious on 9 and a regression from 10",
          "[history]") {
  std::vector<NightFigure> nights = flat_nights();
  for (std::size_t i = 8; i < nights.size(); ++i) nights[i].value *= 1.25;
  const std::vector<JudgedNight> judged = judge_nights(nights, true, HistoryRules{});
  const std::vector<NightVerdict> verdicts = verdicts_of(judged);
  for (int night = 1; night <= 3; ++night) CHECK(verdicts[night - 1] == NightVerdict::no_baseline);
  for (int night = 4; night <= 8; ++night) CHECK(verdicts[night - 1] == NightVerdict::ok);
  CHECK(verdicts[8] == NightVerdict::suspicious);
  for (int night = 10; night <= 14; ++night) CHECK(verdicts[night - 1] == NightVerdict::regression);
  // Night 9's baseline: nights 2..8, median 100 (nights 1 and 6 are at exactly 100).
  CHECK(judged[8].window_nights == 7);
  CHECK(judged[8].baseline == Approx(100.0));
  CHECK(*judged[8].ratio == Approx(1.25 * 1.002));  // night 9 is 0.2 % above 100
  CHECK(judged[8].window_spread == Approx(0.02));   // the nights' own spread beats their 0.4 % between nights
  CHECK(judged[9].in_a_row == 2);
  // The regression's baseline stays the nights before the step: they are the last that passed.
  CHECK(judged[13].baseline == Approx(100.0));
}

TEST_CASE("history judgement: a single bad night is suspicious and never a regression", "[history]") {
  std::vector<NightFigure> nights = flat_nights();
  nights[4].value *= 1.4;
  const std::vector<NightVerdict> verdicts = verdicts_of(judge_nights(nights, true, HistoryRules{}));
  CHECK(verdicts[4] == NightVerdict::suspicious);
  for (std::size_t i = 5; i < verdicts.size(); ++i) CHECK(verdicts[i] == NightVerdict::ok);
  CHECK(std::count(verdicts.begin(), verdicts.end(), NightVerdict::regression) == 0);
}

TEST_CASE("history judgement: --persist sets the nights in a row, --window the baseline", "[history]") {
  std::vector<NightFigure> nights = flat_nights();
  for (std::size_t i = 8; i < nights.size(); ++i) nights[i].value *= 1.25;
  HistoryRules rules;
  rules.persist = 1;
  CHECK(verdicts_of(judge_nights(nights, true, rules))[8] == NightVerdict::regression);
  rules.persist = 3;
  const std::vector<NightVerdict> three = verdicts_of(judge_nights(nights, true, rules));
  CHECK(three[9] == NightVerdict::suspicious);
  CHECK(three[10] == NightVerdict::regression);
  rules = HistoryRules{};
  rules.window = 2;
  rules.min_window = 2;
  const std::vector<JudgedNight> judged = judge_nights(nights, true, rules);
  CHECK(judged[2].window_nights == 2);
  CHECK(judged[1].verdict == NightVerdict::no_baseline);
}

TEST_CASE("history judgement: within the window's spread or the threshold is ok", "[history]") {
  std::vector<NightFigure> nights = flat_nights(10);
  for (NightFigure& n : nights) n.spread = 0.30;  // noisy nights: 30 % between p50 and p90
  nights[9].value *= 1.25;
  CHECK(judge_nights(nights, true, HistoryRules{}).back().verdict == NightVerdict::ok);
  nights[9].value = 100.0 * 1.6;  // beyond the ratio ceiling (1.5x) whatever the spread
  CHECK(judge_nights(nights, true, HistoryRules{}).back().verdict == NightVerdict::suspicious);
  nights = flat_nights(10);
  nights[9].value *= 1.04;  // beyond the spread, within the 5 % threshold
  CHECK(judge_nights(nights, true, HistoryRules{}).back().verdict == NightVerdict::ok);
}

TEST_CASE("history judgement: higher is better mirrors, and improvements pass", "[history]") {
  std::vector<NightFigure> nights = flat_nights(10);
  nights[8].value *= 0.7;
  nights[9].value *= 0.7;
  CHECK(verdicts_of(judge_nights(nights, false, HistoryRules{}))[9] == NightVerdict::regression);
  CHECK(verdicts_of(judge_nights(nights, true, HistoryRules{}))[8] == NightVerdict::improved);
}

TEST_CASE("history judgement: nights that cannot be judged are not, and break a run of bad nights",
          "[history]") {
  std::vector<NightFigure> nights = flat_nights();
  for (std::size_t i = 8; i < nights.size(); ++i) nights[i].value *= 1.25;
  nights[9].judged = false;
  const std::vector<NightVerdict> verdicts = verdicts_of(judge_nights(nights, true, HistoryRules{}));
  CHECK(verdicts[8] == NightVerdict::suspicious);
  CHECK(verdicts[9] == NightVerdict::not_judged);
  CHECK(verdicts[10] == NightVerdict::suspicious);
  CHECK(verdicts[11] == NightVerdict::regression);
}

TEST_CASE("change points: a step is found on its first night, with its t-test", "[history]") {
  std::vector<double> series;
  for (const NightFigure& n : flat_nights()) series.push_back(n.value);
  for (std::size_t i = 8; i < series.size(); ++i) series[i] *= 1.25;
  const std::vector<ChangePoint> points = find_change_points(series, ChangePointRules{});
  REQUIRE(points.size() == 1);
  CHECK(points[0].index == 8);
  CHECK(points[0].pvalue < 1e-10);
  CHECK(points[0].points_before == 8);
  CHECK(points[0].points_after == 6);
  CHECK(points[0].mean_after / points[0].mean_before == Approx(1.25).epsilon(0.005));
}

TEST_CASE("change points: none in noise, none for one bad night in the middle", "[history]") {
  std::vector<double> series;
  for (const NightFigure& n : flat_nights(30)) series.push_back(n.value);
  CHECK(find_change_points(series, ChangePointRules{}).empty());
  series[10] *= 1.4;
  CHECK(find_change_points(series, ChangePointRules{}).empty());
}

TEST_CASE("change points: exact values of a step without noise", "[history]") {
  // Pooled variance 0 and different means: p-value 0; E-divisive's Q of the split [1 1 1 | 5 5 5] is
  // n m / (n + m) * (2 * 4 - 0 - 0) = 9 / 6 * 8 = 12.
  const std::vector<ChangePoint> points = find_change_points({1, 1, 1, 5, 5, 5}, ChangePointRules{});
  REQUIRE(points.size() == 1);
  CHECK(points[0].index == 3);
  CHECK(points[0].pvalue == 0.0);
  CHECK(points[0].qhat == Approx(12.0));
  CHECK(points[0].mean_before == 1.0);
  CHECK(points[0].mean_after == 5.0);
  CHECK(points[0].magnitude() == Approx(4.0));
  // Student's t of [1 2 3] against [4 5 6]: t = -3 / sqrt(1 * (1/3 + 1/3)) = -3.674, 4 degrees of freedom,
  // two-sided p = 0.02131 (scipy.stats.ttest_ind): significant at 0.05, not at 0.001.
  ChangePointRules loose;
  loose.max_pvalue = 0.05;
  const std::vector<ChangePoint> ramp = find_change_points({1, 2, 3, 4, 5, 6}, loose);
  REQUIRE(ramp.size() == 1);
  CHECK(ramp[0].index == 3);
  CHECK(ramp[0].pvalue == Approx(0.02131).epsilon(0.001));
  CHECK(find_change_points({1, 2, 3, 4, 5, 6}, ChangePointRules{}).empty());
  // The merge step drops a change point smaller than min_magnitude.
  ChangePointRules large;
  large.min_magnitude = 5.0;
  CHECK(find_change_points({1, 1, 1, 5, 5, 5}, large).empty());
}

TEST_CASE("history rows: a report's run row and figures, read through the typed report", "[history]") {
  const HistoryNight night = rows_from_report(read_report_file(data("pcie-report.json")), "pcie/report.json");
  CHECK(night.run.node == "pcie-node");
  CHECK(night.run.started_at == "2025-06-01T02:00:00Z");
  CHECK(night.run.topology == "pcie");
  CHECK(night.run.commit == "abc1234");
  CHECK(night.run.mpi == "Open MPI v4.1.4");
  CHECK(night.run.transport == "nccl");
  CHECK(night.run.nccl_env == std::map<std::string, std::string>{{"NCCL_DEBUG", "WARN"}});
  CHECK(night.run.config_hash.size() == 16);
  const auto burst = std::find_if(night.figures.begin(), night.figures.end(), [](const FigureRow& f) {
    return f.key == FigureKey{"allreduce", 1, 0, "eager", "nccl", "burst"};
  });
  REQUIRE(burst != night.figures.end());
  CHECK(burst->value == Approx(6851.3248));
  CHECK(burst->unit == "us");
  CHECK(*burst->spread == Approx(7056.864544000001 / 6851.3248 - 1));
  CHECK(*burst->samples == 20);
  CHECK(figure_name(burst->key) == "allreduce T=1 eager nccl burst");
  // 14 results x (burst, op, busbw) and each completed serve level's tpot, ttft and output throughput.
  const std::size_t serve = std::count_if(night.figures.begin(), night.figures.end(),
                                          [](const FigureRow& f) { return f.key.phase == "serve"; });
  CHECK(night.figures.size() == 14 * 3 + serve);
  CHECK(serve % 3 == 0);
}

TEST_CASE("history rows: each result's own backend, the transport's where a result names none", "[history]") {
  RunReport report = read_report_file(data("pcie-report.json"));
  CHECK(figure_backend(report, report.results.front()) == "nccl");  // read back: the transport's name
  PhaseResult unnamed = report.results.front();
  unnamed.backend.clear();
  report.run.transport = "mpi";
  CHECK(figure_backend(report, unnamed) == "mpi");
  // Another backend's rows (--allreduce-backends) are figures of their own; a point it did not run has none.
  PhaseResult twoshot = report.results.front(), not_run = report.results.front();
  twoshot.backend = "twoshot";
  not_run.backend = "oneshot";
  not_run.not_run = "its buffers are smaller than an op";
  report.backend_results = {twoshot, not_run};
  const HistoryNight night = rows_from_report(report, "pcie/report.json");
  const auto figures_of = [&](const std::string& backend) {
    return std::count_if(night.figures.begin(), night.figures.end(),
                         [&](const FigureRow& f) { return f.key.backend == backend; });
  };
  CHECK(figures_of("twoshot") == 3);  // burst, op, busbw
  CHECK(figures_of("oneshot") == 0);
  CHECK(figure_name(FigureKey{"allreduce", 1, 0, "eager", "twoshot", "burst"}) ==
        "allreduce T=1 eager twoshot burst");
}

TEST_CASE("history rows: what changed between two nights, versions first", "[history]") {
  RunRow before, after;
  before.nccl = "2.28.9";
  after.nccl = "2.29.7";
  before.commit = "aaa";
  after.commit = "bbb";
  after.nccl_env["NCCL_ALGO"] = "Ring";
  const std::vector<FieldChange> changed = changed_fields(before, after);
  REQUIRE(changed.size() == 3);
  CHECK(changed[0] == FieldChange{"nccl", "2.28.9", "2.29.7"});
  CHECK(changed[1] == FieldChange{"commit", "aaa", "bbb"});
  CHECK(changed[2] == FieldChange{"env NCCL_ALGO", "", "Ring"});
}

TEST_CASE("history store: nights read back as added, a report added twice adds nothing", "[history]") {
  const test::TempDir dir;
  const std::string db = (dir.path() / "history.sqlite").string();
  HistoryNight pcie = rows_from_report(read_report_file(data("pcie-report.json")), "pcie.json");
  HistoryNight nvlink = rows_from_report(read_report_file(data("nvlink-report.json")), "nvlink.json");
  {
    HistoryStore store(db, HistoryStore::Access::read_write);
    const AddOutcome first = store.add({pcie, nvlink});
    CHECK(first.added.size() == 2);
    const AddOutcome again = store.add({pcie});
    CHECK(again.added.empty());
    REQUIRE(again.already_there.size() == 1);
    CHECK(again.already_there[0].first_added_from == "pcie.json");
  }
  const HistoryStore store(db, HistoryStore::Access::read_only);
  const std::vector<HistoryNight> nights = store.nights();
  REQUIRE(nights.size() == 2);
  for (HistoryNight* night : {&pcie, &nvlink})
    std::sort(night->figures.begin(), night->figures.end(),
              [](const FigureRow& a, const FigureRow& b) { return a.key < b.key; });
  CHECK(nights[0] == nvlink);  // by node: nvlink-node before pcie-node
  CHECK(nights[1] == pcie);
}

TEST_CASE("history store: a foreign database, a corrupt file, another schema version are refused",
          "[history]") {
  const test::TempDir dir;
  const std::string text = dir.write("notes.sqlite", "this is not a database, it is a note\n");
  CHECK_THROWS_WITH(HistoryStore(text, HistoryStore::Access::read_write),
                    Catch::Contains("notes.sqlite: not a history store"));
  CHECK(test::read_text(text) == "this is not a database, it is a note\n");
  // Another program's database: a table of its own and none of the history's.
  const std::string foreign = (dir.path() / "foreign.sqlite").string();
  {
    SqliteDatabase other(foreign, SqliteDatabase::Mode::read_write_create);
    other.execute("CREATE TABLE notes(text TEXT); INSERT INTO notes VALUES ('mine')");
  }
  const std::string foreign_bytes = test::read_text(foreign);
  CHECK_THROWS_WITH(HistoryStore(foreign, HistoryStore::Access::read_write),
                    Catch::Contains("foreign.sqlite: an SQLite database, but not a k25comm history store"));
  CHECK(test::read_text(foreign) == foreign_bytes);
  // A store a later k25comm wrote.
  const std::string later = (dir.path() / "later.sqlite").string();
  { HistoryStore store(later, HistoryStore::Access::read_write); }
  {
    SqliteDatabase raw(later, SqliteDatabase::Mode::read_write_create);
    raw.execute("UPDATE history_meta SET value = '2' WHERE key = 'schema_version'");
  }
  CHECK_THROWS_WITH(HistoryStore(later, HistoryStore::Access::read_write),
                    Catch::Contains("later.sqlite: history store schema_version 2 is not supported"));
  CHECK_THROWS_WITH(HistoryStore((dir.path() / "missing.sqlite").string(), HistoryStore::Access::read_only),
                    Catch::Contains("missing.sqlite: no such history store"));
}

TEST_CASE("history.json: written and read back, other schema versions refused", "[history]") {
  HistoryNight a = rows_from_report(read_report_file(data("pcie-report.json")), "a.json");
  HistoryNight b = rows_from_report(read_report_file(data("nvlink-report.json")), "b.json");
  b.run.node = "pcie-node";
  b.run.started_at = "2025-06-02T02:00:00Z";
  b.run.nccl = "2.29.7";
  const HistoryDocument doc =
      judge_history({a, b}, HistoryOptions{}, [](const RunRow& r) { return r.report_path; });
  REQUIRE(doc.upgrades.size() == 1);
  CHECK(doc.upgrades[0].changed.front() == FieldChange{"nccl", "", "2.29.7"});
  const std::string text = nlohmann::json(doc).dump();
  CHECK(read_history_document(text, "history.json") == doc);
  nlohmann::json future = nlohmann::json::parse(text);
  future["schema_version"] = kHistorySchemaVersion + 1;
  CHECK_THROWS_WITH(read_history_document(future.dump(), "future.json"),
                    Catch::Contains("future.json: history.json schema_version 2 is not supported"));
  CHECK_THROWS_WITH(read_history_document("{\"a\": 1}", "x.json"),
                    Catch::Contains("not a k25comm history.json"));
}

TEST_CASE("history metrics: OpenMetrics families as Prometheus names them", "[history]") {
  const HistoryNight night = rows_from_report(read_report_file(data("pcie-report.json")), "a.json");
  const std::string text = openmetrics_text({night});
  CHECK(
      text.find(
          "# TYPE k25comm_allreduce_burst_seconds summary\n# UNIT k25comm_allreduce_burst_seconds seconds\n") !=
      std::string::npos);
  CHECK(text.find(
            "k25comm_allreduce_burst_seconds{node=\"pcie-node\",tokens=\"1\",mode=\"eager\",backend=\"nccl\","
            "quantile=\"0.5\"} 0.0068513248\n") != std::string::npos);
  CHECK(text.find("k25comm_allreduce_burst_seconds_count{node=\"pcie-node\",tokens=\"1\",mode=\"eager\","
                  "backend=\"nccl\"} 20\n") != std::string::npos);
  CHECK(text.find("# TYPE k25comm_allreduce_bus_bandwidth_bytes_per_second gauge\n") != std::string::npos);
  CHECK(text.find("k25comm_run_start_timestamp_seconds{node=\"pcie-node\"} 1748743200\n") !=
        std::string::npos);
  CHECK(text.size() > 6);
  CHECK(text.substr(text.size() - 6) == "# EOF\n");
}
