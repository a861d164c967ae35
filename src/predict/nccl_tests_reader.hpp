// nccl-tests' output as an alternative's per-op curve: the text its *_perf programs print, as people paste it
// (any version since 2.0: before 2.16.7 without the "# Collective test starting:" line; mpirun's
// "[1,0]<stdout>:" prefixes; indented; several runs in one file), and the JSON file they write with -J
// (nccl-tests 2.19.x, JSON version 2: src/util.cu of NVIDIA/nccl-tests).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "predict/predict_inputs.hpp"

namespace k25 {

// What a reader of an alternative knows besides the file: the kind where the file does not say it, and the
// base it is read for (its group size chooses among runs of different rank counts in one file).
struct AltReadContext {
  std::string kind;  // --kind, normalized; empty: not given
  int base_ranks = 0;
  std::string
      backend;  // --backend: a replay report's AllReduce backend whose rows stand for it; empty: not given
};

// Whether `text` is nccl-tests' printed output: its "# nccl-tests version" or "# Collective test starting:"
// line, or its result table's header ("size count type redop ...").
bool looks_like_nccl_tests_text(const std::string& text);

// Each table's result lines: the out-of-place time (in-place where out-of-place is not a number) at its size
// (bytes), per element type (-d all: one curve per type, the base's chosen by predict), the "sum" rows of
// -o all. The kind from the run's "# Collective test starting: NAME" line, else --kind, else the *_perf
// program the output names, else the file name; the ranks from its "#  Rank" lines (any spacing), their
// hosts, its "graph:" launches. Several tables of one kind (runs of different rank counts or nodes): the one
// of the base's group size, else refused naming them; never merged. A size whose #wrong is not 0, or whose
// line was cut short, is left out and said. Throws UsageError naming `path` (and the line) for -C host times
// (cputime: not an op's time), a kind nobody says, no result line, or a negative size or time.
AltDocument alt_from_nccl_tests_text(const std::string& text, const std::string& path,
                                     const AltReadContext& context);

// Whether `text` is (or begins as) nccl-tests' -J file: a JSON object with "nccl_version" and "results" or
// "config"; a file cut short counts, so that it is refused as such.
bool looks_like_nccl_tests_json(const std::string& text);

// results[].size and out_of_place.time (in_place where out-of-place is null or "nan"), per type, "sum" rows
// of -o all; the kind from args[0] (the program's name), else --kind, else the file name; the ranks from
// config: processes (devices, one per process) x threads x GPUs per thread; hosts from devices; -G from
// config.graph. Throws UsageError naming `path` for a file cut short (not valid JSON), cpu_time (-C), or as
// the text reader.
AltDocument alt_from_nccl_tests_json(const std::string& text, const std::string& path,
                                     const AltReadContext& context);

}  // namespace k25
