// nccl-tests' printed output, as people paste it, read into runs: each table's result lines and what its run
// says of itself (src/util.cu and src/common.cu of NVIDIA/nccl-tests give the lines; older versions differ
// in the header, the rank lines and the first lines of a run).
#include <cmath>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/error.hpp"
#include "predict/kind_names.hpp"
#include "predict/nccl_tests_launch.hpp"
#include "predict/nccl_tests_runs.hpp"

namespace k25 {
namespace {

const std::string kStartMark = "Collective test starting:";
const std::string kVersionMark = "nccl-tests version";

std::vector<std::string> line_words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// `line` without mpirun's "[1,0]<stdout>:" (--tag-output) prefix and the spaces of an indented paste.
std::string pasted_line(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.size() > 1 && line[0] == '[') {
    const std::size_t close = line.find("]<std");
    if (close != std::string::npos && close < 24) {
      const std::size_t colon = line.find(">:", close);
      if (colon != std::string::npos) line.erase(0, colon + 2);
    }
  }
  const std::size_t first = line.find_first_not_of(" \t");
  return first == std::string::npos ? std::string() : line.substr(first);
}

// The words after a comment's '#'; the line's words where it has none.
std::vector<std::string> comment_words(const std::string& line) {
  return line_words(!line.empty() && line[0] == '#' ? line.substr(1) : line);
}

// A comment line without its '#' and the spaces after it: the output's own lines read the same where a paste
// lost their '#' ("nccl-tests version 2.17.6 ...", "Collective test starting: ...", "nThread 1 nGpus 8 ...").
std::string unhashed(const std::string& line) {
  const std::size_t first = line.find_first_not_of("# \t");
  return first == std::string::npos ? std::string() : line.substr(first);
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

// The header's column names ("size count type redop root time algbw busbw #wrong time ..."); empty when
// `line` is not that header. Some pastes drop its '#'.
std::vector<std::string> table_columns(const std::string& line) {
  std::vector<std::string> columns = comment_words(line);
  if (columns.size() < 5 || columns[0] != "size" || columns[1] != "count") return {};
  return columns;
}

// The index of the `nth` (0: first) column called `name`; -1 where there is none.
int column_index(const std::vector<std::string>& columns, const std::string& name, int nth = 0) {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name && nth-- == 0) return static_cast<int>(i);
  return -1;
}

constexpr double kMaxRankNumber = 1e6;

struct TextRun {
  NcclTestsRun run;
  std::vector<std::string> columns;
  RunRankLines said;  // its launch, nThread and nGpus, rank lines
};

// A launch fact into what a run says: the processes and the hosts each from the last line that says them.
void merge_launch(std::optional<LaunchFact>& into, const LaunchFact& fact) {
  if (!into) {
    into = fact;
    return;
  }
  if (fact.processes > 0) {
    into->processes = fact.processes;
    into->source = fact.source;
    into->one_process_command = fact.one_process_command;
  }
  if (fact.hosts > 0) into->hosts = fact.hosts;
}

// "#  Rank  0 Group  0 Pid  1234 on host device  0 [0x1b] NVIDIA H100" (2.10+), "#   Rank  0 Pid ... on host
// device 0 [0x1b] ..." (older): the rank number and host, any spacing.
bool read_rank_line(const std::string& line, TextRun& run) {
  const std::vector<std::string> words = comment_words(line);
  if (words.size() < 2 || words[0] != "Rank") return false;
  const std::optional<double> rank = parse_number(words[1]);
  // A rank number is a small whole number; anything else is not a rank line (and never a cast out of range).
  if (!rank || *rank < 0 || *rank > kMaxRankNumber || *rank != std::floor(*rank)) return false;
  run.said.rank_numbers.insert(static_cast<int>(*rank));
  for (std::size_t i = 2; i + 1 < words.size(); ++i)
    if (words[i] == "on") {
      run.said.hostnames.insert(words[i + 1]);
      break;
    }
  return true;
}

// "# nThread 1 nGpus 8 minBytes ... validation: 1 graph: 0 ...": threads and GPUs per process, and the graph
// launches of -G, where said.
void read_settings_line(const std::string& line, TextRun& run) {
  const std::vector<std::string> words = comment_words(line);
  const auto count_after = [&](std::size_t i) {
    const std::optional<double> value = parse_number(words[i + 1]);
    return value && *value >= 1 && *value <= kMaxRankNumber ? static_cast<int>(*value) : 0;
  };
  for (std::size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] == "graph:")
      if (const std::optional<double> launches = parse_number(words[i + 1])) run.run.graph = *launches > 0;
    if (words[i] == "nThread") run.said.threads = count_after(i);
    if (words[i] == "nGpus") run.said.gpus = count_after(i);
  }
}

// Whether `words` begin a result line: a whole number of bytes first, then (where the table has a type
// column) a type's name, not a number. A line that does not is the end of one that wrapped in the paste.
bool begins_result_line(const std::vector<std::string>& words, int type) {
  const double first = *parse_number(words[0]);
  if (first != std::floor(first)) return false;
  return type < 0 || static_cast<std::size_t>(type) >= words.size() ||
         !parse_number(words[static_cast<std::size_t>(type)]);
}

// What a line without the start of a result line was, said by the column its first word stood under.
std::string line_end_note(const std::vector<std::string>& words, const std::vector<std::string>& columns,
                          std::size_t needed, const std::string& where) {
  if (words.size() > needed)
    return fmt::format("{}: a line of {} numbers that begins with no size ({}): left out", where,
                       words.size(), words[0]);
  return fmt::format(
      "{}: the end of a result line on a line of its own (its last {} of {} columns, from {} under '{}'): left out",
      where, words.size(), needed, words[0], columns[needed - words.size()]);
}

// One result line of the current table; a size left out (its #wrong not 0, the line cut short) and the end of
// a line that wrapped are said in `notes`, each by what it was.
void read_result_line(const std::vector<std::string>& words, const std::string& where, TextRun& run,
                      std::vector<std::string>& notes) {
  const std::vector<std::string>& columns = run.columns;
  const int type = column_index(columns, "type"), redop = column_index(columns, "redop");
  const int time = column_index(columns, "time"), in_place_time = column_index(columns, "time", 1);
  const int wrong = column_index(columns, "#wrong"), in_place_wrong = column_index(columns, "#wrong", 1);
  std::size_t needed = columns.size();
  if (!columns.empty() && columns.back() == "timestamp") --needed;  // its value is two words, or none
  if (!begins_result_line(words, type)) {
    notes.push_back(line_end_note(words, columns, needed, where));
    return;
  }
  const double bytes = *parse_number(words[0]);
  if (words.size() < needed) {
    notes.push_back(fmt::format("{}: a result line cut short ({} of {} columns): {:.0f} B left out", where,
                                words.size(), needed, bytes));
    return;
  }
  const auto number_at = [&](int column) {
    return column >= 0 ? parse_number(words[static_cast<std::size_t>(column)]) : std::nullopt;
  };
  std::optional<double> op_us = number_at(time);
  int wrong_column = wrong;
  if (!op_us) {
    op_us = number_at(in_place_time);
    wrong_column = in_place_wrong;
  } else if (*op_us > 0 && bytes > 0) {
    op_us = guarded_op_us(*op_us, number_at(in_place_time), where, bytes, notes);
  }
  if (!op_us) throw UsageError(where + ": an nccl-tests result line without a time");
  if (*op_us < 0 || bytes < 0) throw UsageError(where + ": a negative size or time");
  if (const std::optional<double> wrong_count = number_at(wrong_column); wrong_count && *wrong_count != 0) {
    notes.push_back(fmt::format("{}: {:.0f} B measured {:g} wrong elements (#wrong): that size left out",
                                where, bytes, *wrong_count));
    return;
  }
  if (bytes == 0 || *op_us == 0) return;  // nothing moved: no point of a log-log curve
  run.run.rows.push_back({bytes, *op_us,
                          type >= 0 ? normalized_dtype(words[static_cast<std::size_t>(type)]) : "",
                          redop >= 0 ? words[static_cast<std::size_t>(redop)] : ""});
}

// The kind of the one *_perf program the output names ("./build/all_reduce_perf -b 8 ..."); empty where it
// names none or several.
std::string named_program_kind(const std::string& text) {
  std::set<std::string> kinds;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    for (std::string word : line_words(line)) {
      if (const std::size_t slash = word.rfind('/'); slash != std::string::npos) word.erase(0, slash + 1);
      if (word.size() > 5 && word.compare(word.size() - 5, 5, "_perf") == 0)
        kinds.insert(normalized_kind(word));
    }
  return kinds.size() == 1 ? *kinds.begin() : "";
}

// Closes the current run into `runs` where it holds a table, and starts a new one.
void close_run(TextRun& current, std::vector<NcclTestsRun>& runs) {
  if (!current.columns.empty()) {
    const RankCount count = said_rank_count(current.said);
    current.run.ranks = count.ranks;
    current.run.hosts = count.hosts;
    current.run.ranks_source = count.source;
    runs.push_back(current.run);
  }
  current = TextRun{};
}

}  // namespace

bool looks_like_nccl_tests_text(const std::string& text) {
  if (text.find("# " + kVersionMark) != std::string::npos) return true;
  if (text.find(kStartMark) != std::string::npos) return true;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!table_columns(pasted_line(line)).empty()) return true;
  return false;
}

AltDocument alt_from_nccl_tests_text(const std::string& text, const std::string& path,
                                     const AltReadContext& context) {
  std::vector<NcclTestsRun> runs;
  std::vector<std::string> notes;
  TextRun current;
  std::optional<LaunchFact> next_launch;  // a launch said after a table: the next run's
  std::istringstream in(text);
  int number = 0;
  for (std::string raw; std::getline(in, raw);) {
    ++number;
    const std::string line = pasted_line(raw);
    if (line.empty()) continue;
    const std::string own = unhashed(line);  // the output's own line, where a paste lost its '#'
    const bool run_start =
        starts_with(own, kVersionMark) || starts_with(own, kStartMark) || starts_with(own, "nThread ");
    if (run_start && !current.columns.empty()) {
      close_run(current, runs);
      current.said.launch = std::exchange(next_launch, std::nullopt);
    }
    if (const std::optional<LaunchFact> fact = launch_fact(line, number))
      merge_launch(current.columns.empty() ? current.said.launch : next_launch, *fact);
    if (starts_with(own, kVersionMark)) {
      const std::vector<std::string> version = line_words(own.substr(kVersionMark.size()));
      if (!version.empty()) current.run.version = version[0];
    } else if (starts_with(own, kStartMark)) {
      const std::vector<std::string> name = line_words(own.substr(kStartMark.size()));
      if (!name.empty()) current.run.kind = normalized_kind(name[0]);
    } else if (starts_with(own, "nThread ")) {
      read_settings_line(own, current);
    } else if (std::vector<std::string> columns = table_columns(line); !columns.empty()) {
      if (column_index(columns, "cputime") >= 0)
        throw UsageError(fmt::format(
            "{}:{}: nccl-tests run with -C (cputime): the host's time to launch an op, not the op's time: run it without -C",
            path, number));
      if (!current.columns.empty()) {  // a second table without run lines
        close_run(current, runs);
        current.said.launch = std::exchange(next_launch, std::nullopt);
      }
      current.columns = std::move(columns);
      current.run.line = number;
    } else if (read_rank_line(line, current)) {
      if (!current.columns.empty()) {  // a rank line after a table: the next run's
        TextRun next;
        next.run.kind = current.run.kind;
        next.run.version = current.run.version;
        next.said.launch = std::exchange(next_launch, std::nullopt);
        close_run(current, runs);
        current = std::move(next);
        read_rank_line(line, current);
      }
    } else if (line[0] != '#' && !current.columns.empty()) {
      const std::vector<std::string> words = line_words(line);
      if (words.size() >= 3 && parse_number(words[0]))
        read_result_line(words, fmt::format("{}:{}", path, number), current, notes);
    }
  }
  close_run(current, runs);
  AltDocument alt = alt_from_nccl_tests_runs(runs, path, context, named_program_kind(text), std::move(notes));
  alt.timing = "nccl-tests' out-of-place time per op (wall time of its iterations / iterations)";
  return alt;
}

}  // namespace k25
