// CSV (RFC 4180) of JSON records, for spreadsheets and scripts: results.csv, serve.csv, compare --format csv.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace k25 {

// One row per record (a JSON object). Columns are the members flattened with dots, as report.json names them
// ("step_us.p50", "bytes_per_rank.mean", "errors.http_5xx"): `leading` first, then the others in order of
// first appearance (each object's members in name order). Null or absent cells are empty; arrays are written
// as JSON text. A header line names the columns.
std::string csv_of_records(const std::vector<nlohmann::json>& records,
                           const std::vector<std::string>& leading);

// One CSV field: quoted (with inner quotes doubled) when it holds a comma, quote, CR or LF.
std::string csv_field(const std::string& text);

}  // namespace k25
