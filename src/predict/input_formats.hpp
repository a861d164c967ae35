// predict's input formats, one table row each {name, sniff, read}: the bases (capture.json, report.json) and
// the alternatives (replay report.json, nccl-tests text or -J JSON, CSV), each file's format told by its
// content. The refusal of a file of none of them, `k25comm predict --help`'s lists and docs/predict.md's
// table are made from the rows.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "predict/nccl_tests_reader.hpp"
#include "predict/predict_inputs.hpp"

namespace k25 {

// One input file, read once: its text and, where the text is JSON, the parsed document (discarded
// otherwise).
struct PredictInput {
  std::string path;
  std::string text;
  nlohmann::json json;
};

struct BaseFormat {
  const char* name;        // as the output names the base's format ("capture.json")
  const char* how_to_get;  // the command that makes it
  const char* read_as;     // what a level is and where its join comes from, in words
  bool (*sniff)(const PredictInput&);
  BaseDocument (*read)(const PredictInput&);  // throws UsageError naming the file
};

struct AltFormat {
  const char* name;
  const char* how_to_get;
  const char* read_as;  // the op time used, in words
  bool (*sniff)(const PredictInput&);
  AltDocument (*read)(const PredictInput&, const AltReadContext&);
};

// A file that looks like one predict does not read, and what to do with it.
struct RefusedFormat {
  const char* name;
  bool (*sniff)(const PredictInput&);
  const char* advice;
};

const std::vector<BaseFormat>& base_formats();
const std::vector<AltFormat>& alt_formats();
const std::vector<RefusedFormat>& refused_base_formats();

// Reads `path` and tells its format by the tables. Throws UsageError (exit 2), one line naming `path`:
// unreadable, a refused look-alike (with its advice), none of the formats (naming them), or what the
// format's reader refuses. An alternative's op times are checked for what no link can do (times in ms
// written as us).
BaseDocument read_base_file(const std::string& path);
AltDocument read_alt_file(const std::string& path, const std::string& label, const AltReadContext& context);

// The name an alternative goes by when --label does not give one: the file's stem, or its folder's name for
// the names k25comm and nccl-tests give every file ("report", "results", "capture").
std::string default_label(const std::string& path);

// "capture.json (k25comm capture ...), report.json (...)": the formats of one role for --help.
std::string base_formats_help();
std::string alt_formats_help();

// docs/predict.md's table of the formats (between its predict-formats markers), from the rows.
std::string predict_formats_markdown();

}  // namespace k25
