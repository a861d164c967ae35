// Flattening JSON records into CSV rows.
#include "common/csv_table.hpp"

#include <algorithm>
#include <map>

namespace k25 {
namespace {

void flatten(const nlohmann::json& value, const std::string& prefix, std::vector<std::string>& columns,
             std::map<std::string, std::string>& cells) {
  if (value.is_object()) {  // an empty object (no errors) adds no column
    for (const auto& [key, member] : value.items())
      flatten(member, prefix.empty() ? key : prefix + "." + key, columns, cells);
    return;
  }
  if (std::find(columns.begin(), columns.end(), prefix) == columns.end()) columns.push_back(prefix);
  if (value.is_null()) {
    cells[prefix] = "";
  } else if (value.is_string()) {
    cells[prefix] = value.get<std::string>();
  } else {
    cells[prefix] = value.dump();
  }
}

}  // namespace

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char ch : text) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

std::string csv_of_records(const std::vector<nlohmann::json>& records,
                           const std::vector<std::string>& leading) {
  std::vector<std::string> columns = leading;
  std::vector<std::map<std::string, std::string>> rows;
  for (const nlohmann::json& record : records) {
    rows.emplace_back();
    flatten(record, "", columns, rows.back());
  }
  std::string csv;
  for (std::size_t i = 0; i < columns.size(); ++i) csv += (i ? "," : "") + csv_field(columns[i]);
  csv += "\n";
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const auto cell = row.find(columns[i]);
      csv += (i ? "," : "") + (cell == row.end() ? std::string() : csv_field(cell->second));
    }
    csv += "\n";
  }
  return csv;
}

}  // namespace k25
