// Report reader inputs found by fuzzing (tests/fuzz/fuzz_report_reader): each must end in a UsageError (exit
// 2) naming the file, never another exception (which `k25comm report` and `compare` would turn into exit 3).
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/report_reader.hpp"
#include "common/error.hpp"
#include "report/markdown_report.hpp"

namespace {

void require_usage_error_named(const std::string& text, const std::string& name) {
  try {
    (void)k25::parse_report_text(text, name);
    FAIL("accepted: " + text.substr(0, 200));
  } catch (const k25::UsageError& e) {
    CHECK(std::string(e.what()).find(name) != std::string::npos);
  }
}

void require_usage_error(const std::string& text) {
  require_usage_error_named(text, "hostile.jsonl");
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

namespace {

std::string read_corpus(const std::string& name) {
  std::ifstream file(K25_SOURCE_DIR "/tests/fuzz/corpus/fuzz_report_reader/" + name);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// JSON pointers of every integer leaf of `j`, except under the config echo (opaque to the reader) and the
// derived attribution and fits (read only when report.md is rendered; see the test below).
void integer_leaves(const nlohmann::json& j, const std::string& pointer, std::vector<std::string>& out) {
  if (pointer == "/run/config" || pointer == "/attribution" || pointer == "/fits") return;
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) integer_leaves(value, pointer + "/" + key, out);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) integer_leaves(j[i], pointer + "/" + std::to_string(i), out);
  } else if (j.is_number_integer()) {
    out.push_back(pointer);
  }
}

// The field a leaf's pointer names, array indices left out ("/results/3/tokens" -> "/results/*/tokens").
std::string field_of(const std::string& pointer) {
  std::string field;
  std::size_t at = 0;
  while (at < pointer.size()) {
    const std::size_t end = std::min(pointer.find('/', at + 1), pointer.size());
    const std::string part = pointer.substr(at + 1, end - at - 1);
    const bool index = !part.empty() && part.find_first_not_of("0123456789") == std::string::npos;
    field += "/" + (index ? std::string("*") : part);
    at = end;
  }
  return field;
}

// Of the leaves that are one field (the same key in each element of an array), the first and the last: one
// reader reads them all, and both ends show one that treats an element by its place.
std::vector<std::string> first_and_last_of_each_field(const std::vector<std::string>& leaves) {
  std::map<std::string, std::pair<std::string, std::string>> ends;
  std::vector<std::string> fields;
  for (const std::string& leaf : leaves) {
    const std::string field = field_of(leaf);
    auto [at, added] = ends.try_emplace(field, leaf, leaf);
    if (added) fields.push_back(field);
    at->second.second = leaf;
  }
  std::vector<std::string> kept;
  for (const std::string& field : fields) {
    const auto& [first, last] = ends.at(field);
    kept.push_back(first);
    if (last != first) kept.push_back(last);
  }
  return kept;
}

// Floats that are no integer, and integers no field can hold.
const std::vector<nlohmann::json>& hostile_numbers() {
  static const std::vector<nlohmann::json> numbers = {1e300, -1e300, 0.5, 4294967296.0,
                                                      18446744073709551615ULL};
  return numbers;
}

}  // namespace

TEST_CASE("report reader: a float or an out-of-range number in any integer field is a UsageError",
          "[analysis][regression]") {
  // fuzz_report_reader finding (CI, UBSan): a result's integer field held a float too large for an int, and
  // nlohmann's get<int>() converted it (undefined behaviour). Every integer field of a real report is now
  // replaced in turn by each hostile number; a field that silently takes one would fail here (and, in the
  // sanitizer build, a conversion left unchecked would abort it). A field of an array's elements is tried in
  // its first and last element (every element: 770 reads, 103 s under ASan; these: 248).
  CHECK(field_of("/results/3/step_us/12") == "/results/*/step_us/*");
  CHECK(first_and_last_of_each_field({"/r/0/a", "/r/0/b", "/r/1/a", "/r/2/a", "/n"}) ==
        std::vector<std::string>{"/r/0/a", "/r/2/a", "/r/0/b", "/n"});
  for (const std::string name : {"nvlink-report.json", "interrupted-report.json"}) {
    const nlohmann::json report = nlohmann::json::parse(read_corpus(name));
    std::vector<std::string> leaves;
    integer_leaves(report, "", leaves);
    REQUIRE(leaves.size() > 10);
    for (const std::string& leaf : first_and_last_of_each_field(leaves)) {
      for (const nlohmann::json& number : hostile_numbers()) {
        // wrong and bytes_per_op are uint64: the largest uint64 is a valid count there.
        if (number.is_number_unsigned() && (leaf.ends_with("/wrong") || leaf.ends_with("/bytes_per_op")))
          continue;
        nlohmann::json hostile = report;
        hostile[nlohmann::json::json_pointer(leaf)] = number;
        INFO(name << " " << leaf << " = " << number.dump());
        require_usage_error_named(hostile.dump(), "hostile.json");
      }
    }
  }
}

TEST_CASE("report reader: every integer field of a journal line is checked too", "[analysis][regression]") {
  const std::string journal = read_corpus("interrupted-journal.jsonl");
  std::vector<std::string> lines;
  std::istringstream stream(journal);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  std::size_t checked = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const nlohmann::json entry = nlohmann::json::parse(lines[i]);
    std::vector<std::string> leaves;
    integer_leaves(entry, "", leaves);
    for (const std::string& leaf : leaves) {
      nlohmann::json hostile = entry;
      hostile[nlohmann::json::json_pointer(leaf)] = 1e300;
      std::string text;
      for (std::size_t k = 0; k < lines.size(); ++k) text += (k == i ? hostile.dump() : lines[k]) + "\n";
      INFO("line " << i + 1 << " " << leaf);
      require_usage_error_named(text, "hostile.jsonl");
      ++checked;
    }
  }
  CHECK(checked > 10);
}

TEST_CASE("report.json: attribution and fits are recomputed from the results, never taken from the file",
          "[analysis][regression]") {
  // They were once read back field by field, so a float in an integer field reached the renderer.
  const nlohmann::json report = nlohmann::json::parse(read_corpus("nvlink-report.json"));
  REQUIRE(!report.at("attribution").empty());
  REQUIRE(!report.at("fits").empty());
  const k25::RunReport clean = k25::parse_report_text(report.dump(), "clean.json");
  for (const char* leaf : {"/attribution/0/concurrency", "/attribution/0/tokens", "/fits/0/points",
                           "/fits/0/ops_per_step", "/fits/0/min_tokens", "/fits/0/max_tokens"}) {
    nlohmann::json hostile = report;
    REQUIRE(hostile.contains(nlohmann::json::json_pointer(leaf)));
    hostile[nlohmann::json::json_pointer(leaf)] = 1e300;
    const k25::RunReport parsed = k25::parse_report_text(hostile.dump(), "hostile.json");
    INFO(leaf);
    CHECK(nlohmann::json(parsed.attribution) == nlohmann::json(clean.attribution));
    CHECK(nlohmann::json(parsed.fits) == nlohmann::json(clean.fits));
    CHECK(k25::render_markdown(parsed) == k25::render_markdown(clean));
  }
}

TEST_CASE("report.md: a byte count too large for a long long prints in exponent form",
          "[analysis][regression]") {
  // Was llround(1e300), whose result is unspecified (LLONG_MIN on x86-64), then negated: signed overflow.
  nlohmann::json report = nlohmann::json::parse(read_corpus("nvlink-report.json"));
  nlohmann::json* all_to_all = nullptr;
  for (nlohmann::json& result : report.at("results")) {
    if (result.contains("bytes_per_rank")) all_to_all = &result;
  }
  REQUIRE(all_to_all != nullptr);
  (*all_to_all)["bytes_per_rank"] = {{"mean", 1e300}, {"max", -1e300}};
  const std::string md = k25::render_markdown(k25::parse_report_text(report.dump(), "hostile.json"));
  CHECK(md.find("1e+300 (-1e+300)") != std::string::npos);
}

TEST_CASE("report reader: a bad result or serve level is named by its index", "[analysis][regression]") {
  nlohmann::json report = nlohmann::json::parse(read_corpus("nvlink-report.json"));
  REQUIRE(report.at("results").size() > 3);
  REQUIRE(report.at("serve").at("levels").size() > 2);
  const auto message_of = [](const nlohmann::json& hostile) -> std::string {
    try {
      (void)k25::parse_report_text(hostile.dump(), "hostile.json");
    } catch (const k25::UsageError& e) {
      return e.what();
    }
    return "accepted";
  };
  nlohmann::json bad_result = report;
  bad_result["results"][3]["tokens"] = 1.5;
  CHECK_THAT(message_of(bad_result), Catch::Contains("results[3]: 'tokens' must be an integer, not 1.5"));
  nlohmann::json bad_level = report;
  bad_level["serve"]["levels"][2]["completed"] = -4;
  CHECK_THAT(message_of(bad_level), Catch::Contains("serve.levels[2]: 'completed' = -4 is outside 0.."));
  nlohmann::json not_a_list = report;
  not_a_list["results"] = {{"tokens", 1}};
  CHECK_THAT(message_of(not_a_list), Catch::Contains("'results' must be an array"));
}
