// Report reader inputs found by fuzzing (tests/fuzz/fuzz_report_reader): each must end in a UsageError (exit
// 2) naming the file, never another exception (which `k25comm report` and `compare` would turn into exit 3).
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "analysis/report_reader.hpp"
#include "common/error.hpp"

namespace {

void require_usage_error(const std::string& text) {
  try {
    (void)k25::parse_report_text(text, "hostile.jsonl");
    FAIL("accepted: " + text);
  } catch (const k25::UsageError& e) {
    CHECK(std::string(e.what()).find("hostile.jsonl") != std::string::npos);
  }
}

}  // namespace

TEST_CASE("report reader: an unknown mode in a journal result is a UsageError", "[analysis][regression]") {
  // fuzz_report_reader crash: parse_mode's std::invalid_argument ("unknown mode 'eage?'") escaped. The input:
  // a real journal (the seed corpus's interrupted run) with one byte of a result's mode changed.
  std::ifstream file(K25_SOURCE_DIR "/tests/fuzz/corpus/fuzz_report_reader/interrupted-journal.jsonl");
  std::stringstream text;
  text << file.rdbuf();
  std::string journal = text.str();
  const auto at = journal.find(R"("mode":"eager")");
  REQUIRE(at != std::string::npos);
  REQUIRE_NOTHROW(k25::parse_report_text(journal, "hostile.jsonl"));
  require_usage_error(std::string(journal).replace(at, 14, R"("mode":"eage?")"));
  const auto phase = journal.find(R"("phase":"allreduce")");
  REQUIRE(phase != std::string::npos);
  require_usage_error(std::string(journal).replace(phase, 19, R"("phase":"allreducf")"));
}

TEST_CASE("report reader: a journal line whose type is not a string is a UsageError",
          "[analysis][regression]") {
  // Was a json type_error 302 from entry.value("type", ""); later lines of unknown type are skipped as
  // before.
  require_usage_error("{\"type\":5}\n");
}
