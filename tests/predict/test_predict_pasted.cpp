// predict on nccl-tests outputs as people paste them and on CSVs copied from capture.json (issue 51): the
// rank count from what the output says first and where it came from, a cut row named by what it was, a 2.17.6
// output whose '#' were lost, per-rank sizes read at nccl-tests' size. Every fixture is hand-made
// (data/nccl-tests/README.md); every expected figure worked out beside it.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "predict/input_formats.hpp"
#include "predict/kind_names.hpp"
#include "predict/nccl_tests_reader.hpp"
#include "predict/step_prediction.hpp"
#include "predict_test_inputs.hpp"

using namespace k25;
using namespace k25::predict_test;
using Catch::Matchers::Contains;

TEST_CASE("a CSV of per-rank sizes (capture.json's AllGather rows) is read at nccl-tests' size",
          "[predict]") {
  SECTION("a bytes_per column, the ranks the base's group size") {
    const AltDocument alt = alt_csv(
        "kind,bytes,op_us,bytes_per\nallgather,50272,21.0,rank\nallgather,100544,30,rank\n", "per-rank", 8);
    REQUIRE(alt.curves.size() == 1);
    CHECK(alt.curves[0].points[0].bytes == 402176);  // 8 x 50,272
    CHECK(alt.curves[0].points[1].bytes == 804352);
    CHECK_THAT(joined(alt.notes),
               Contains("per-rank sizes (bytes_per rank) x 8 ranks, the base's group size"));
  }
  SECTION("a '# bytes_per: rank' header with its ranks; AllReduce's size is the same either way") {
    const AltDocument alt =
        alt_csv("# bytes_per: rank\n# ranks: 4\nkind,bytes,op_us\nallgather,50272,21\nallreduce,14336,9\n",
                "per-rank-header", 8);
    CHECK(alt.ranks == 4);
    CHECK(alt.curves[0].points[0].bytes == 201088);  // 4 x 50,272
    CHECK(alt.curves[1].points[0].bytes == 14336);
    CHECK_THAT(joined(alt.notes), Contains("per-rank sizes (bytes_per rank) x 4 ranks, its '# ranks:' line"));
  }
  SECTION("per op as written; refused where it cannot be read") {
    CHECK(alt_csv("kind,bytes,op_us,bytes_per\nallgather,402176,21,op\n", "per-op", 8)
              .curves[0]
              .points[0]
              .bytes == 402176);
    CHECK_THROWS_WITH(alt_csv("kind,bytes,op_us,bytes_per\nallgather,50272,21,node\n", "per-node", 8),
                      Contains("per-node.csv:2: bytes_per 'node' is none of op (nccl-tests' size), rank"));
    // A rank count out of int's range (the fuzzer found it cast unchecked), and one that is no count.
    CHECK_THROWS_WITH(
        alt_csv("kind,bytes,op_us,bytes_per,ranks\nallgather,50272,21.0,rank,8111111111111111111111\n",
                "huge-ranks", 8),
        Contains(
            "huge-ranks.csv:2: ranks '8111111111111111111111' is not a rank count (a whole number 1 .. 1000000)"));
    CHECK_THROWS_WITH(
        alt_csv("# bytes_per: rank\n# ranks: 2.5\nkind,bytes,op_us\nallgather,50272,21\n", "half-rank", 8),
        Contains("half-rank.csv:2: # ranks: '2.5' is not a rank count"));
    CHECK_THROWS_WITH(
        alt_csv("kind,bytes,op_us,bytes_per\nallgather,50272,21,rank\n", "per-rank-no-ranks", 0),
        Contains("per-rank-no-ranks.csv:2: per-rank bytes of AllGather need the rank count"));
    // A size beyond any collective's (the fuzzer found 4e096 per-rank bytes cast to an integer unchecked).
    CHECK_THROWS_WITH(
        alt_csv("kind,bytes,op_us,bytes_per,ranks\nallgather,4e096,12,rank,2\n", "huge-bytes", 8),
        Contains("huge-bytes.csv:2: bytes 4e+96 is beyond any collective's size (at most "
                 "1.1259e+15, 1 PiB)"));
    CHECK_THROWS_WITH(nccl_tests_size("allgather", 4e96, 2), Contains("is beyond any collective's size"));
  }
  SECTION("predicted at the base's AllGather size, measured") {
    BaseDocument base = capture_base();
    base.ranks = 8;
    base.levels[0].kinds[0].kind = "allgather";
    base.levels[0].kinds[0].name = "AllGather";
    base.levels[0].kinds[0].bytes = 402176;
    const AltDocument alt = alt_csv("kind,bytes,op_us,bytes_per\nallgather,50272,21.0,rank\n", "gathered", 8);
    const LevelPrediction l = predict_with(base, alt, {}).levels[0];
    REQUIRE(l.refused.empty());
    CHECK(estimate(l, PredictMethod::additive).kinds[0].source == OpSource::measured);
  }
}

TEST_CASE("nccl-tests pasted: the rank count from what the output says first, and which source gave it",
          "[predict]") {
  struct Case {
    const char* file;
    int ranks;
    const char* said;
  };
  const Case cases[] = {
      // mpirun -np 16 over the rank lines of a paste that shows 4 of them.
      {"ranks-16-shown-4.txt", 16,
       "ranks: 16 = 16 processes x 1 thread x 1 GPU (nThread 1 nGpus 1; the processes from mpirun -np 16 at line 1)"},
      {"ranks-slurm-shown-2.txt", 8,
       "ranks: 8 = 8 processes x 1 thread x 1 GPU (nThread 1 nGpus 1; the processes from SLURM_NTASKS=8 at line 2)"},
      // One process of 8 GPUs: the command line runs the program without a launcher.
      {"ranks-one-process-8-gpus.txt", 8,
       "ranks: 8 = 1 process x 1 thread x 8 GPUs (nThread 1 nGpus 8; one process: the command at line 1 runs all_reduce_perf without a launcher)"},
      {"ranks-world-size.txt", 8,
       "ranks: 8 = 4 processes x 1 thread x 2 GPUs (nThread 1 nGpus 2; the processes from WORLD_SIZE=4 at line 1)"},
      // The rank lines only where nothing else says.
      {"two-runs-8-and-16-ranks.txt", 16,
       "ranks: 16, from the '#  Rank' lines (ranks 0 .. 15; the output says no process count)"},
      {"all_gather-2proc-4gpu-graph.json", 8,
       "ranks: 8 = 2 processes x 1 thread x 4 GPUs (the -J file's config: its devices, nthreads, ngpus)"},
  };
  for (const Case& c : cases) {
    INFO(c.file);
    const AltDocument alt = alt_file(nccl_tests(c.file), "", c.ranks);
    CHECK(alt.ranks == c.ranks);
    CHECK_THAT(joined(alt.notes), Contains(c.said));
  }
  // mpirun's -H names two hosts; the rank lines shown, one.
  CHECK(alt_file(nccl_tests("ranks-16-shown-4.txt"), "", 16).hosts == 2);
}

TEST_CASE("nccl-tests pasted: a cut row is named by what it was", "[predict]") {
  const AltDocument alt = alt_file(nccl_tests("wrapped-line.txt"));
  REQUIRE(alt.curves.size() == 1);
  CHECK(alt.curves[0].points.size() == 2);
  const std::string notes = joined(alt.notes);
  CHECK_THAT(notes,
             Contains("wrapped-line.txt:14: a result line cut short (9 of 13 columns): 1048576 B left out"));
  CHECK_THAT(
      notes,
      Contains(
          "wrapped-line.txt:15: the end of a result line on a line of its own (its last 4 of 13 columns, from 579.3 under 'time'): left out"));
  CHECK_THAT(notes, !Contains("579 B"));
}

TEST_CASE("nccl-tests pasted: a 2.17.6 output whose '#' were lost reads, and what is missing is said",
          "[predict]") {
  const AltDocument alt = alt_file(nccl_tests("lost-hashes-2.17.6.txt"), "", 4);
  REQUIRE(alt.curves.size() == 1);
  CHECK(alt.curves[0].kind == "allgather");
  CHECK(alt.curves[0].points.size() == 3);
  CHECK(alt.ranks == 4);
  CHECK_THAT(joined(alt.notes), !Contains("older than"));
  // Its start and end lines cut out too: the version says it printed them.
  std::ifstream in(nccl_tests("lost-hashes-2.17.6.txt"));
  std::stringstream text;
  for (std::string line; std::getline(in, line);)
    if (line.find("Collective test") == std::string::npos) text << line << "\n";
  CHECK_THROWS_WITH(
      alt_from_nccl_tests_text(text.str(), "pasted.txt", {}),
      Contains(
          "pasted.txt: nccl-tests 2.17.6 output without its 'Collective test starting: NAME' line (that version prints one: the paste left it out), no *_perf program named in it, and no collective in its file name: give --kind KIND"));
  AltReadContext context;
  context.kind = "allgather";
  const AltDocument given = alt_from_nccl_tests_text(text.str(), "pasted.txt", context);
  CHECK_THAT(
      joined(given.notes),
      Contains(
          "the collective, AllGather, from --kind (nccl-tests 2.17.6 prints a 'Collective test starting:' line; this output has none)"));
  CHECK_THAT(joined(given.notes), !Contains("older than"));
}
