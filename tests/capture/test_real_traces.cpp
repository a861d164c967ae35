// The real traces of other projects in ../shared/traces (README.md there): every file read, and per-kind
// sums, merged, overlapped and exposed communication equal to that README's reference figures to 0.1 us
// (nanoseconds for the Nsight Systems export); comm/compute overlap within 2 points of
// HolisticTraceAnalysis's figure. Hidden ([.]): tests/capture/real_traces_check.sh runs them where the folder
// exists and skips otherwise.
//
// Why the figures differ where they do:
// - HTA counts only the kernels whose host launch falls from the first ProfilerStep to the start of the last
// one
//   (two or more steps): TraceRankResult::profiler_steps applies the same filter and gives HTA's
//   figures, 14.76 % (a100), 68.80 % (v100), 11.81 % and 20.05 % (the sampled ranks). Over the whole trace
//   (no step filter) the overlap is 15.61 % (a100), 70.84 % (v100), 14.95 % and 19.93 %: the README's
//   merged/overlapped figures, up to 2.04 points from HTA's. Filtering by the kernels' own start instead of
//   their launch gives 69.67 % on v100 (kernels launched before the first step that run inside it).
// - The README's merged busy of sglang-decode-tp1-rocm, 9,759.8 us, came from floating-point sums; the exact
//   decimal figure of its timestamps (three decimals each) is 9,759.749 us, which k25comm gives
//   (nanoseconds).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>

#include "capture/capture_inputs.hpp"
#include "capture/trace_analysis.hpp"
#include "common/error.hpp"

using namespace k25;

namespace {

std::string traces_dir() {
  const char* dir = std::getenv("K25_TRACES_DIR");
  return dir ? dir : "";
}

TraceResult analyze_files(const std::vector<std::string>& names) {
  static const KernelClassifier classifier({std::string(K25_SOURCE_DIR) + "/data/kernel-classes.yaml"});
  std::vector<std::string> paths;
  for (const std::string& name : names) paths.push_back(traces_dir() + "/" + name);
  return analyze_trace(read_capture_inputs(paths).trace, classifier, TraceSettings{}).result;
}

struct Reference {
  std::string file;
  std::vector<std::tuple<std::string, std::uint64_t, double>> kinds;  // kind, count, sum (us)
  double merged, overlapped, exposed;
  std::uint64_t kernels;
  double busy;
  double hta_overlap_percent;  // -1: no HTA figure
};

// ../shared/traces/README.md, "Reference figures".
const std::vector<Reference> kReferences = {
    {"hta-a100-2ranks-rank0-c10d.json.gz",
     {{"AllReduce", 15, 46762.2}, {"Broadcast", 6, 114.3}},
     46876.5,
     7317.0,
     39559.5,
     2700,
     155215.3,
     14.76},
    {"hta-v100-2ranks-rank1-graphs.json.gz",
     {{"SendRecv", 43, 159259.0}, {"AllReduce", 21, 92082.0}},
     251341.0,
     178043.0,
     73298.0,
     9876,
     621446.0,
     68.8},
    {"hta-128ranks-sampled-rank0.json.gz",
     {{"SendRecv", 10, 396199.0}},
     396199.0,
     59216.0,
     336983.0,
     1154,
     547303.0,
     11.81},
    {"hta-128ranks-sampled-rank1.json.gz",
     {{"SendRecv", 10, 379053.0}},
     379053.0,
     75530.0,
     303523.0,
     1104,
     575496.0,
     20.05},
    {"sglang-decode-tp1-rocm.json.gz", {}, 0, 0, 0, 555, 9759.8, -1},
    {"vllm-decode-fullgraph-tp1-rocm.json.gz", {}, 0, 0, 0, 425, 10674.5, -1},
};

}  // namespace

TEST_CASE("real traces: per-kind sums, merged, overlapped and exposed communication as the README gives them",
          "[.][real-traces]") {
  REQUIRE_FALSE(traces_dir().empty());
  for (const Reference& ref : kReferences) {
    INFO(ref.file);
    const TraceResult t = analyze_files({ref.file});
    REQUIRE(t.ranks.size() == 1);
    const TraceRankResult& r = t.ranks[0];
    REQUIRE(r.comm_kinds.size() == ref.kinds.size());
    for (const auto& [kind, count, sum] : ref.kinds) {
      const std::string& wanted = kind;  // clang 14 cannot capture a structured binding
      const auto k = std::find_if(r.comm_kinds.begin(), r.comm_kinds.end(),
                                  [&](const KindTime& x) { return x.kind == wanted; });
      REQUIRE(k != r.comm_kinds.end());
      CHECK(k->count == count);
      CHECK(k->sum_us == Approx(sum).margin(0.1));
    }
    CHECK(r.comm.merged_us == Approx(ref.merged).margin(0.1));
    CHECK(r.comm.overlapped_us == Approx(ref.overlapped).margin(0.1));
    CHECK(r.comm.exposed_us == Approx(ref.exposed).margin(0.1));
    CHECK(r.kernels == ref.kernels);
    CHECK(r.kernel_busy_us == Approx(ref.busy).margin(0.1));
    if (ref.hta_overlap_percent >= 0) {
      REQUIRE(r.profiler_steps);
      CHECK(std::abs(r.profiler_steps->overlap_percent - ref.hta_overlap_percent) <= 2.0);
      CHECK(std::abs(r.profiler_steps->overlap_percent - ref.hta_overlap_percent) <
            0.01);  // HTA's filter, exactly
    }
  }
  // The exact decimal figures where the README rounded floating-point sums.
  CHECK(analyze_files({"sglang-decode-tp1-rocm.json.gz"}).ranks[0].kernel_busy_us ==
        Approx(9759.749).margin(1e-6));
  CHECK(analyze_files({"hta-a100-2ranks-rank0-c10d.json.gz"}).ranks[0].profiler_steps->overlap_percent ==
        Approx(14.7625).margin(0.0001));
}

TEST_CASE("real traces: the Nsight Systems export of two processes, to the nanosecond", "[.][real-traces]") {
  REQUIRE_FALSE(traces_dir().empty());
  const TraceResult t = analyze_files({"nsys-2gpu-nccl-nvtx.sqlite"});
  REQUIRE(t.ranks.size() == 2);
  CHECK(t.ranks[0].device == 0);
  CHECK(t.ranks[0].kernels == 1993);
  CHECK(t.ranks[1].kernels == 2017);
  REQUIRE(t.ranks[0].comm_kinds.size() == 1);
  CHECK(t.ranks[0].comm_kinds[0].kind == "SendRecv");
  CHECK(t.ranks[0].comm_kinds[0].count == 33);
  CHECK(std::llround(t.ranks[0].comm_kinds[0].sum_us * 1000) == 17172652);
  CHECK(std::llround(t.ranks[1].comm_kinds[0].sum_us * 1000) == 8229100);
  CHECK(t.sizes_unknown == 66);  // NCCL's NVTX ranges are there, their payloads are not (no blobs exported)
}

TEST_CASE("real traces: the two sampled ranks of one 128-rank job are one run; the CPU-only trace is refused",
          "[.][real-traces]") {
  REQUIRE_FALSE(traces_dir().empty());
  const TraceResult t =
      analyze_files({"hta-128ranks-sampled-rank0.json.gz", "hta-128ranks-sampled-rank1.json.gz"});
  REQUIRE(t.ranks.size() == 2);
  CHECK(t.ranks[1].rank == 1);
  CHECK(t.ranks[1].world_size == 128);
  const std::string cpu_only = traces_dir() + "/hta-cpu-only.json.gz";
  try {
    (void)read_capture_inputs({cpu_only});
    FAIL("no error");
  } catch (const UsageError& e) {
    CHECK(
        std::string(e.what()) ==
        cpu_only +
            ": a profiler trace without GPU events (no kernel, memcpy or memset): profile with ProfilerActivity.CUDA");
  }
  // Different runs: rank 0 of the A100 job and rank 1 of the V100 job.
  try {
    (void)read_capture_inputs({traces_dir() + "/hta-a100-2ranks-rank0-c10d.json.gz",
                               traces_dir() + "/hta-v100-2ranks-rank1-graphs.json.gz"});
    FAIL("no error");
  } catch (const UsageError& e) {
    CHECK_THAT(std::string(e.what()),
               Catch::Matchers::Contains("files of different runs: the GPU times of "));
  }
}
