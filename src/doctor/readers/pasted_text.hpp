// One file of what people paste, split into lines once for every reader: the text as read (a log, a matrix, a
// dump or several of them one after another), its lines without their line ends, and small helpers the
// readers share to take a line apart.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "doctor/model/fact_source.hpp"

namespace k25 {

struct PastedText {
  std::string file;
  std::string text;
  std::vector<std::string_view> lines;  // into `text`, without "\n" or "\r\n"; lines[0] is line 1

  // The source of line `index` (0-based) of this file.
  FactSource source(std::size_t index) const;
};

// `text` of `file` split into lines. Takes the text: the lines point into it.
PastedText pasted_text(std::string file, std::string text);

// `line` without leading and trailing white space.
std::string_view trimmed(std::string_view line);
// The words of `line` split at runs of white space.
std::vector<std::string_view> words_of(std::string_view line);
// A Markdown table row's cells ("| GPU0 | X | PIX |" gives "GPU0", "X", "PIX"), trimmed; empty where the line
// is no table row.
std::vector<std::string_view> table_cells(std::string_view line);
// True for a Markdown table's rule row ("|---|:---:|").
bool is_table_rule(std::string_view line);

// A decimal integer of at most 9 digits, or -1.
int small_number(std::string_view digits);
// A decimal number ("24.10"), or nullopt-like -1 where `text` is not one.
double decimal_number(std::string_view text);

}  // namespace k25
