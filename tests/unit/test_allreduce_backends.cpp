// The AllReduce backends without MPI: the peer buffers' layout and two-shot split, the ops a peer backend
// refuses, the burst check catching an op that reads the next op's data, the epilogue's reference and bound,
// the backends' table (best never WRONG, ratios, crossover, headline, TPOT), report.json and the journal with
// backends, compare by backend, report --backends-from and predict --backend.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "../analysis/report_fixtures.hpp"
#include "analysis/analyze.hpp"
#include "analysis/backend_merge.hpp"
#include "analysis/backend_table.hpp"
#include "analysis/compare.hpp"
#include "analysis/report_reader.hpp"
#include "common/error.hpp"
#include "config/config_keys.hpp"
#include "plan/hang_spec.hpp"
#include "predict/backend_rows.hpp"
#include "predict/report_inputs.hpp"
#include "transport/add_rmsnorm.hpp"
#include "transport/check_pattern.hpp"
#include "transport/host_burst_check.hpp"
#include "transport/host_elements.hpp"
#include "transport/peer_allreduce.hpp"

using namespace k25;
using namespace k25::test;

namespace {

PhaseResult backend_row(const std::string& backend, int tokens, TimingMode mode, double step_us,
                        std::uint64_t wrong = 0) {
  PhaseResult r = allreduce_result(tokens, mode, step_us);
  r.backend = backend;
  r.wrong = wrong;
  return r;
}

// A GPU report: nccl's own rows and oneshot/twoshot at 1 and 32 tokens, eager.
RunReport backends_report() {
  RunReport r = empty_report();
  r.results = {backend_row("nccl", 1, TimingMode::eager, 6810),
               backend_row("nccl", 32, TimingMode::eager, 11346)};
  r.backend_results = {backend_row("oneshot", 1, TimingMode::eager, 1420),
                       backend_row("twoshot", 1, TimingMode::eager, 2100),
                       backend_row("oneshot", 32, TimingMode::eager, 17960),
                       backend_row("twoshot", 32, TimingMode::eager, 9000)};
  return r;
}

}  // namespace

TEST_CASE(
    "the peer buffer layout keeps flags, slots and the gather area apart for every algorithm and rank count",
    "[backends]") {
  for (const AllreduceBackend algorithm :
       {AllreduceBackend::oneshot, AllreduceBackend::twoshot, AllreduceBackend::oneshot_pull})
    for (int ranks = 1; ranks <= kMaxPeerRanks; ++ranks) {
      const PeerBufferLayout layout = peer_buffer_layout(algorithm, ranks, 14336, 14336, kMaxPeerBlocks);
      CHECK(layout.flag_offset(kMaxPeerBlocks - 1, kPeerBarriers - 1, kMaxPeerRanks - 1) + kPeerFlagStride ==
            layout.slots_offset);
      CHECK(layout.slots == (algorithm == AllreduceBackend::oneshot_pull ? 1 : ranks));
      CHECK(layout.gather_offset == layout.slot_offset(layout.slots));
      CHECK(layout.slots_offset % kPeerVectorBytes == 0);
      CHECK(layout.slot_bytes % kPeerVectorBytes == 0);
      CHECK(layout.total_bytes >= layout.gather_offset + 2 * layout.gather_bytes);
      if (algorithm == AllreduceBackend::twoshot) CHECK(layout.gather_bytes == 14336);
    }
}

TEST_CASE(
    "two-shot splits an op into one part per rank that together cover it once, in whole vectors or rows",
    "[backends]") {
  for (int ranks = 1; ranks <= kMaxPeerRanks; ++ranks)
    for (const std::size_t rows : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{16}}) {
      const std::size_t count = rows > 0 ? rows * 7168 : 7168 * 5 + 8;
      std::size_t next = 0;
      for (int rank = 0; rank < ranks; ++rank) {
        const PeerChunk chunk = twoshot_chunk(rank, ranks, count, Dtype::bf16, rows);
        CHECK(chunk.first == next);
        if (rows > 0) CHECK(chunk.count % 7168 == 0);
        if (rows == 0 && chunk.first + chunk.count < count) CHECK(chunk.count % 8 == 0);
        // The slot of a part holds it.
        const PeerBufferLayout layout =
            peer_buffer_layout(AllreduceBackend::twoshot, ranks, count * 2, rows > 0 ? 7168 * 2 : 0, 1);
        CHECK(chunk.count * 2 <= layout.slot_bytes);
        next = chunk.first + chunk.count;
      }
      CHECK(next == count);
    }
}

TEST_CASE(
    "a peer backend refuses an op above its buffer, a kind or type it does not sum, a size not in vectors",
    "[backends]") {
  OpBurst burst;
  burst.what = "allreduce at 4 tokens";
  CollectiveOp op;
  op.count = 4 * 7168;
  burst.ops = {op};
  PeerAllreduceOptions options;
  options.max_op_bytes = 8u << 20;
  CHECK_FALSE(peer_op_refusal(options, burst, 0, true));
  options.max_op_bytes = 4096;
  const auto too_big = peer_op_refusal(options, burst, 0, true);
  REQUIRE(too_big);
  CHECK(
      *too_big ==
      "oneshot: 57344 bytes per op is above its 4096-byte buffer (transport.peer_max_bytes, --peer-max-bytes)");
  options.max_op_bytes = 8u << 20;
  burst.ops[0].count = 7;
  CHECK(peer_op_refusal(options, burst, 0, true));         // 14 bytes: not whole 16-byte vectors on the GPU
  CHECK_FALSE(peer_op_refusal(options, burst, 0, false));  // the host takes any size
  burst.ops[0].kind = CollectiveKind::allgather;
  CHECK(peer_op_refusal(options, burst, 0, false));
}

TEST_CASE(
    "the burst check counts every element of an op that reads the next op's data, and none of exact ops",
    "[backends]") {
  // An even rank count: the plain check data sums to one value at every index, so only the per-op shift tells
  // one op's result from the next's.
  const int ranks = 4, rank = 1;
  OpBurst burst;
  burst.what = "allreduce at 1 token";
  CollectiveOp op;
  op.count = 64;
  burst.ops.assign(8, op);
  std::vector<std::byte> input(op.count * 2), output(op.count * 2);
  const HostAllreduceBuffers buffers{input.data(), output.data(), output.data(), output.size(),
                                     nullptr,      nullptr,       nullptr};
  const auto sum_of = [&](std::size_t op_index) {
    for (std::size_t i = 0; i < op.count; ++i)
      store_element(output.data(), i, Dtype::bf16,
                    static_cast<float>(check::allreduce_burst_expected(ranks, i, op_index)));
  };
  CHECK(check_allreduce_burst(burst, rank, ranks, buffers, [&](std::size_t k) { sum_of(k); }) == 0);
  // A racing op: op k's result made of op k + 1's data (a peer's next push landed before it was read).
  CHECK(check_allreduce_burst(burst, rank, ranks, buffers, [&](std::size_t k) { sum_of(k + 1); }) == 8 * 64);
  // An op that wrote nothing: the NaN the check put there is counted.
  CHECK(check_allreduce_burst(burst, rank, ranks, buffers, [](std::size_t) {}) == 8 * 64);
}

TEST_CASE(
    "the add + RMSNorm epilogue on the host is within its bound of the CPU reference, and a one-percent error is not",
    "[backends]") {
  const int ranks = 8;
  const std::size_t rows = 3, row = 7168;
  for (const Dtype dtype : {Dtype::bf16, Dtype::fp32}) {
    const std::size_t bytes = rows * row * dtype_bytes(dtype);
    std::vector<std::byte> sum(bytes), residual(bytes), norm(bytes), weight(row * dtype_bytes(dtype));
    fill_epilogue_inputs(residual.data(), weight.data(), rows, row, dtype);
    const std::uint64_t op = 5;  // op 5 of a burst
    for (std::size_t i = 0; i < rows * row; ++i)
      store_element(sum.data(), i, dtype, static_cast<float>(check::allreduce_burst_expected(ranks, i, op)));
    add_rmsnorm_rows(sum.data(), residual.data(), weight.data(), norm.data(), 0, rows, row, dtype);
    const EpilogueReference reference = add_rmsnorm_references(ranks, row);
    CHECK(count_epilogue_wrong_host(sum.data(), norm.data(), rows, row, dtype, ranks, op, reference) == 0);
    store_element(norm.data(), 7, dtype, load_element(norm.data(), 7, dtype) * 1.01f);
    CHECK(count_epilogue_wrong_host(sum.data(), norm.data(), rows, row, dtype, ranks, op, reference) == 1);
    // The residual output of the next op's data is wrong in every element.
    CHECK(count_epilogue_wrong_host(sum.data(), norm.data(), rows, row, dtype, ranks, op + 1, reference) ==
          rows * row);
  }
  CHECK(within_epilogue_bound(1.0f, 1.0f + 1.0f / 256));
  CHECK_FALSE(within_epilogue_bound(1.0f, 1.0f + 1.0f / 64));
}

TEST_CASE(
    "the allreduce backends flag reads a list once each, an empty YAML list is the default, a name twice is refused",
    "[backends][config]") {
  RunConfig config;
  apply_flag(*config_key_of_flag("--allreduce-backends"), "mpi,oneshot,twoshot,oneshot-pull", config);
  CHECK(config.sweep.allreduce_backends ==
        std::vector<AllreduceBackend>{AllreduceBackend::mpi, AllreduceBackend::oneshot,
                                      AllreduceBackend::twoshot, AllreduceBackend::oneshot_pull});
  CHECK(config_to_json(config)["sweep"]["allreduce_backends"] ==
        nlohmann::json::array({"mpi", "oneshot", "twoshot", "oneshot-pull"}));
  CHECK_THROWS_WITH(apply_flag(*config_key_of_flag("--allreduce-backends"), "oneshot,oneshot", config),
                    Catch::Contains("oneshot is named twice"));
  CHECK_THROWS_WITH(apply_flag(*config_key_of_flag("--allreduce-backends"), "threeshot", config),
                    Catch::Contains("threeshot"));
  CHECK(config_to_json(RunConfig{})["sweep"]["allreduce_backends"] == nlohmann::json::array());
  const auto hang = parse_hang_spec("allreduce:4:2:1:oneshot");
  REQUIRE(hang);
  CHECK(hang->applies_to(AllreduceBackend::oneshot));
  CHECK_FALSE(hang->applies_to(AllreduceBackend::mpi));
  CHECK(parse_hang_spec("allreduce:4:2:1")->applies_to(AllreduceBackend::twoshot));
  CHECK_THROWS_WITH(parse_hang_spec("allreduce:4:2:1:fourshot"), Catch::Contains("unknown BACKEND"));
}

TEST_CASE(
    "the backends' table: ratios to the default, the best per token count, the crossover and the headline",
    "[backends][analysis]") {
  RunReport report = backends_report();
  analyze_report(report);
  const BackendAnalysis& a = report.backends;
  REQUIRE(a.tables.size() == 2);
  CHECK(a.default_backend == "nccl");
  CHECK(a.tables[0].best == "oneshot");
  CHECK(a.tables[1].best == "twoshot");
  CHECK(a.tables[0].rows[1].ratio.value() == Approx(1420.0 / 6810.0));
  CHECK(a.crossover.oneshot_up_to_bytes == 14336);
  CHECK(a.crossover.twoshot_from_bytes == 32 * 14336);
  CHECK(
      a.headline.at(0) ==
      "AllReduce burst at T=1: nccl 6.81 ms, oneshot 1.42 ms (0.21x), twoshot 2.10 ms (0.31x) (eager, 122 ops of 14336 B); best oneshot; best per token count: oneshot at T=1, twoshot at T=32; one-shot/two-shot crossover between 14336 B (one-shot faster) and 458752 B per op");
  CHECK(report.headline.back().rfind(a.headline.at(0), 0) == 0);  // with the run's tags after it
  const nlohmann::json written = nlohmann::json(report).at("allreduce_backends");
  CHECK(written.at("tables").at(0).at("best") == "oneshot");
}

TEST_CASE("a WRONG backend is never best, even where it is the fastest", "[backends][analysis]") {
  RunReport report = backends_report();
  report.backend_results[0].wrong = 3;  // oneshot at T=1: fastest, and wrong
  analyze_report(report);
  CHECK(report.backends.tables[0].best == "twoshot");
  CHECK(report.backends.headline.at(0).find("oneshot WRONG (3 wrong elements)") != std::string::npos);
  // No usable backend at all: none is best.
  for (PhaseResult& r : report.backend_results) r.wrong = 1;
  report.results[0].wrong = 1;
  analyze_report(report);
  CHECK(report.backends.tables[0].best.empty());
}

TEST_CASE(
    "with serve figures the best backend's burst replaces the default's in TPOT, tagged measured in replay",
    "[backends][analysis]") {
  RunReport report = backends_report();
  report.serve.ran = true;
  report.serve.levels = {serve_level(1, 12.4, 79.0)};
  analyze_report(report);
  REQUIRE(report.backends.tpot.size() == 1);
  const BackendTpotEffect& e = report.backends.tpot[0];
  CHECK(e.backend == "oneshot");
  CHECK(e.new_tpot_ms == Approx(12.4 - 6.81 + 1.42));
  CHECK(report.backends.headline.at(1).find("with oneshot (best at T=1), TPOT at C=1 12.40 -> 7.01 ms") == 0);
  CHECK(report.backends.headline.at(1).find("[measured in replay") != std::string::npos);
}

TEST_CASE("report.json keeps every backend's rows and reads a report before backends as the transport's own",
          "[backends][report]") {
  RunReport report = backends_report();
  PhaseResult pull = backend_row("oneshot-pull", 1, TimingMode::eager, 1000);
  pull.iterations = 0;
  pull.step_us = pull.op_us = Stats{};
  pull.algbw_gbps = pull.busbw_gbps = 0;
  pull.not_run = "P2P is not possible between rank 0's GPU and rank 3's GPU";
  report.backend_results.push_back(pull);
  nlohmann::json j = report;
  CHECK(j.at("schema_version") == 4);
  CHECK(j.at("results").at(0).at("backend") == "nccl");
  const RunReport back = parse_report_text(j.dump(), "report.json");
  CHECK(back.results.size() == 2);
  CHECK(back.backend_results.size() == 5);
  CHECK(back.backend_results.back().not_run.find("P2P is not possible") == 0);
  // Schema 3: no backend field, no backend_results: the transport's own rows.
  j["schema_version"] = 3;
  j.erase("backend_results");
  for (auto& r : j["results"]) r.erase("backend");
  const RunReport old = parse_report_text(j.dump(), "old.json");
  CHECK(old.results.size() == 2);
  CHECK(old.results[0].backend == "nccl");
  CHECK(old.backend_results.empty());
  // A journal files each result under its backend, a result of one backend replacing only its own.
  std::string journal =
      R"({"type": "run_start", "schema_version": 4, "run": {"transport": "mpi", "ranks": 2}})"
      "\n";
  for (const char* backend : {"mpi", "oneshot", "oneshot"}) {
    PhaseResult r = backend_row(backend, 1, TimingMode::eager, 100);
    journal += nlohmann::json{{"type", "result"}, {"result", r}}.dump() + "\n";
  }
  const RunReport from_journal = parse_report_text(journal, "journal.jsonl");
  CHECK(from_journal.results.size() == 1);
  CHECK(from_journal.backend_results.size() == 1);
}

TEST_CASE(
    "compare matches rows by backend and finds a backend's regression, and old reports match the default rows",
    "[backends][compare]") {
  const RunReport base = backends_report();
  RunReport next = backends_report();
  next.backend_results[0].step_us = stats_p50_p90(2840, 2900);  // oneshot at T=1 twice as slow
  const Comparison c = compare_reports(base, next, CompareRules{});
  const auto found = std::find_if(c.figures.begin(), c.figures.end(), [](const ComparedFigure& f) {
    return f.point == "allreduce T=1 eager [oneshot]";
  });
  REQUIRE(found != c.figures.end());
  CHECK(found->verdict == Verdict::regression);
  CHECK(c.failed());
  // A report without backends against one with them: the default rows match, the others are missing.
  RunReport old = backends_report();
  old.backend_results.clear();
  for (PhaseResult& r : old.results) r.backend.clear();
  CompareRules allow;
  allow.allow_missing = true;
  const Comparison mixed = compare_reports(old, base, allow);
  CHECK(mixed.count(Verdict::only_new) == 4);
  CHECK(mixed.count(Verdict::same) == 2);
  CHECK(mixed.figures.front().not_run.empty());
}

TEST_CASE("compare says why a point is on one side only where a backend did not run it there",
          "[backends][compare]") {
  const RunReport base = backends_report();
  RunReport next = backends_report();
  next.backend_results[2].not_run = "its peer buffers (4 MiB) are smaller than an op";  // oneshot at T=32
  next.backend_results[2].step_us = Stats{};
  const Comparison c = compare_reports(base, next, CompareRules{});
  const auto found = std::find_if(c.figures.begin(), c.figures.end(), [](const ComparedFigure& f) {
    return f.point == "allreduce T=32 eager [oneshot]";
  });
  REQUIRE(found != c.figures.end());
  CHECK(found->verdict == Verdict::only_base);
  CHECK(found->not_run == "its peer buffers (4 MiB) are smaller than an op");
  CHECK(c.failed());  // a point the base measured and the new run did not: still a missing point
  CHECK(render_comparison(c).find(
            "missing points: allreduce T=32 eager [oneshot] (base only; the new run's "
            "backend did not run it: its peer buffers (4 MiB) are smaller than an op)") != std::string::npos);
  // Not run on both sides: no point to compare, nothing missing.
  RunReport both = next;
  const Comparison neither = compare_reports(both, next, CompareRules{});
  CHECK(neither.count(Verdict::only_base) + neither.count(Verdict::only_new) == 0);
}

TEST_CASE("report --backends-from names a variant by what sets it apart and refuses one not like for like",
          "[backends][merge]") {
  RunReport report = backends_report();
  report.backend_results.clear();
  RunReport ll = backends_report();
  ll.backend_results.clear();
  ll.run.env = {{"NCCL_PROTO", "LL"}};
  merge_backend_variants(report, ll, "sweep/proto-ll/report.json");
  std::set<std::string> names;
  for (const PhaseResult& r : report.backend_results) names.insert(r.backend);
  CHECK(names == std::set<std::string>{"nccl NCCL_PROTO=LL"});
  RunReport symmetric = backends_report();
  symmetric.backend_results.clear();
  symmetric.run.config["transport"] = {{"nccl_register", "symmetric"}};
  merge_backend_variants(report, symmetric, "symm/report.json");
  CHECK(report.backend_results.back().backend == "nccl register=symmetric");
  RunReport other = backends_report();
  for (PhaseResult& r : other.results) r.dtype = Dtype::fp32;
  CHECK_THROWS_WITH(merge_backend_variants(report, other, "fp32/report.json"),
                    Catch::Contains("not like for like: dtype differs (this report bf16, it fp32)"));
}

TEST_CASE("predict --backend takes that backend's AllReduce rows, and refuses an unknown or WRONG one",
          "[backends][predict]") {
  const RunReport report = backends_report();
  const RunReport chosen = with_backend_rows(report, "oneshot", "ab/report.json");
  REQUIRE(chosen.results.size() == 2);
  CHECK(chosen.results[0].step_us.p50 == 1420);
  CHECK(chosen.backend_results.empty());
  CHECK(with_backend_rows(report, "nccl", "ab/report.json").results[0].step_us.p50 == 6810);
  CHECK_THROWS_WITH(with_backend_rows(report, "oneshot-pull", "ab/report.json"),
                    Catch::Contains("no rows of that AllReduce backend (it has nccl, oneshot, twoshot)"));
  RunReport wrong = report;
  wrong.backend_results[1].wrong = 2;
  CHECK_THROWS_WITH(with_backend_rows(wrong, "twoshot", "ab/report.json"), Catch::Contains("it was WRONG"));
  // The alternative's notes say whose burst it is.
  RunReport on_nccl = report;
  on_nccl.run.transport = "nccl";
  const auto notes = [](const AltDocument& alt) { return fmt::format("{}", fmt::join(alt.notes, " | ")); };
  CHECK_THAT(
      notes(alt_from_report(with_backend_rows(on_nccl, "oneshot", "ab/report.json"), "ab/report.json")),
      Catch::Contains("its AllReduce burst ran on the oneshot backend (--backend)"));
  CHECK_THAT(notes(alt_from_report(on_nccl, "ab/report.json")),
             Catch::Contains("its AllReduce burst ran on the nccl backend (the transport's own)"));
}
