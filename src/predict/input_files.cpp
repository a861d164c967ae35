// Reads predict's input files and tells each one's format by its content.
#include "predict/input_files.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/report_reader.hpp"
#include "common/error.hpp"
#include "predict/capture_base_reader.hpp"
#include "predict/csv_alt_reader.hpp"
#include "predict/nccl_tests_reader.hpp"
#include "predict/report_inputs.hpp"

namespace k25 {
namespace {

std::string file_text(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw UsageError(path + ": a folder, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot be read: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool looks_like_report(const nlohmann::json& doc) {
  return doc.is_object() && doc.contains("results") &&
         (doc.contains("tool") || doc.contains("schema_version"));
}

}  // namespace

BaseDocument read_base_file(const std::string& path) {
  const std::string text = file_text(path);
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded())
    throw UsageError(path + ": not JSON: the base is a capture.json or a k25comm report.json");
  if (looks_like_capture_json(doc)) return base_from_capture(doc, path);
  if (looks_like_report(doc)) return base_from_report(parse_report_text(text, path), path);
  throw UsageError(path + ": JSON, but neither a capture.json nor a k25comm report.json");
}

AltDocument read_alt_file(const std::string& path, const std::string& label) {
  const std::string text = file_text(path);
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  AltDocument alt;
  if (!doc.is_discarded() && looks_like_nccl_tests_json(doc))
    alt = alt_from_nccl_tests_json(doc, path);
  else if (!doc.is_discarded() && looks_like_report(doc))
    alt = alt_from_report(parse_report_text(text, path), path);
  else if (doc.is_discarded() && looks_like_nccl_tests_text(text))
    alt = alt_from_nccl_tests_text(text, path);
  else if (doc.is_discarded() && looks_like_alt_csv(text))
    alt = alt_from_csv(text, path);
  else
    throw UsageError(
        path +
        ": none of the alternative's formats (a k25comm report.json, nccl-tests output as text or -J JSON, a CSV of kind, bytes, op_us)");
  alt.label = label.empty() ? default_label(path) : label;
  return alt;
}

std::string default_label(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string stem = p.stem().string();
  const std::string folder = p.parent_path().filename().string();
  if ((stem == "report" || stem == "results" || stem == "capture") && !folder.empty() && folder != ".")
    return folder;
  return stem.empty() ? path : stem;
}

}  // namespace k25
