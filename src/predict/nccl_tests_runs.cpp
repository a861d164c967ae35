// nccl-tests runs into an alternative: each run's kind, the run chosen per kind, the rows read.
#include "predict/nccl_tests_runs.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/error.hpp"
#include "predict/kind_names.hpp"

namespace k25 {
namespace {

std::string run_text(const NcclTestsRun& run) {
  std::string text = run.ranks > 0 ? fmt::format("{} ranks", run.ranks) : "ranks not said";
  if (run.hosts > 1) text += fmt::format(" on {} hosts", run.hosts);
  if (run.line > 0) text += fmt::format(" at line {}", run.line);
  return text;
}

// The kind of a run, and where it came from (for the notes); throws where nobody says it or --kind
// contradicts the file.
std::string resolve_kind(const NcclTestsRun& run, const std::string& path, const AltReadContext& context,
                         const std::string& program_kind, std::vector<std::string>& notes) {
  if (!run.kind.empty()) {
    if (!context.kind.empty() && context.kind != run.kind)
      throw UsageError(fmt::format("{}: the output says it measured {}, --kind says {}", path,
                                   kind_title(run.kind), kind_title(context.kind)));
    return run.kind;
  }
  const std::string from_name = kind_in_name(std::filesystem::path(path).filename().string());
  std::string kind, source;
  if (!context.kind.empty()) {
    kind = context.kind;
    source = "--kind";
  } else if (!program_kind.empty()) {
    kind = program_kind;
    source = "the *_perf program named in it";
  } else if (!from_name.empty()) {
    kind = from_name;
    source = "its file name";
  } else {
    throw UsageError(fmt::format(
        "{}: {} without its 'Collective test starting: NAME' line ({}), no *_perf program named in it, and no collective in its file name: give --kind KIND",
        path, run.version.empty() ? "nccl-tests output" : "nccl-tests " + run.version + " output",
        run.version.empty() ? "nccl-tests before 2.16.7 prints none"
                            : "that version prints one: the paste left it out"));
  }
  const std::string missing =
      run.version.empty()
          ? "the output has no 'Collective test starting:' line and says no version: nccl-tests before 2.16.7 prints neither"
          : fmt::format("nccl-tests {} prints a 'Collective test starting:' line; this output has none",
                        run.version);
  const std::string line = fmt::format("the collective, {}, from {} ({})", kind_title(kind), source, missing);
  if (std::find(notes.begin(), notes.end(), line) == notes.end()) notes.push_back(line);
  return kind;
}

// The one run of `kind` to read among `runs`: the only one, else the one of the base's group size; refused
// naming them otherwise.
const NcclTestsRun& choose_run(const std::vector<const NcclTestsRun*>& runs, const std::string& kind,
                               const std::string& path, const AltReadContext& context,
                               std::vector<std::string>& notes) {
  if (runs.size() == 1) return *runs.front();
  std::vector<std::string> listed;
  std::vector<const NcclTestsRun*> matching;
  for (const NcclTestsRun* run : runs) {
    listed.push_back(run_text(*run));
    if (context.base_ranks > 0 && run->ranks == context.base_ranks) matching.push_back(run);
  }
  if (matching.size() == 1) {
    notes.push_back(
        fmt::format("{} holds {} runs of {} ({}): the one of {} ranks, the base's group size, read", path,
                    runs.size(), kind_title(kind), fmt::join(listed, "; "), context.base_ranks));
    return *matching.front();
  }
  throw UsageError(fmt::format(
      "{}: {} runs of {} in one file ({}), and {}: give the one to compare alone (runs are never merged)",
      path, runs.size(), kind_title(kind), fmt::join(listed, "; "),
      context.base_ranks > 0
          ? fmt::format("{} of them are of the base's {} ranks", matching.size(), context.base_ranks)
          : std::string("the base's group size is not known")));
}

// The rows of a run that stand for its op: the "sum" ones where -o all printed several reductions.
std::vector<NcclTestsRow> read_rows(const NcclTestsRun& run, std::vector<std::string>& notes,
                                    const std::string& path) {
  std::set<std::string> redops;
  for (const NcclTestsRow& row : run.rows) redops.insert(row.redop);
  if (redops.size() <= 1 || redops.count("sum") == 0) return run.rows;
  std::vector<NcclTestsRow> sums;
  for (const NcclTestsRow& row : run.rows)
    if (row.redop == "sum") sums.push_back(row);
  notes.push_back(
      fmt::format("{}: reductions {} measured (-o all): the sum rows read", path, fmt::join(redops, ", ")));
  return sums;
}

}  // namespace

double guarded_op_us(double out_of_place_us, std::optional<double> in_place_us, const std::string& where,
                     double bytes, std::vector<std::string>& notes) {
  if (!in_place_us || *in_place_us <= 0 || out_of_place_us <= 0) return out_of_place_us;
  const double low = std::min(out_of_place_us, *in_place_us), high = std::max(out_of_place_us, *in_place_us);
  if (high <= kPlacementOutlier * low) return out_of_place_us;
  notes.push_back(fmt::format(
      "{}: {:.0f} B took {:g} us out of place and {:g} us in place: more than {:g}x apart (a stall, or a protocol switch in one of them): the smaller taken",
      where, bytes, out_of_place_us, *in_place_us, kPlacementOutlier));
  return low;
}

AltDocument alt_from_nccl_tests_runs(const std::vector<NcclTestsRun>& runs, const std::string& path,
                                     const AltReadContext& context, const std::string& program_kind,
                                     std::vector<std::string> notes) {
  std::map<std::string, std::vector<const NcclTestsRun*>> by_kind;
  std::vector<std::string> kind_order;
  for (const NcclTestsRun& run : runs) {
    if (run.rows.empty()) continue;
    const std::string kind = resolve_kind(run, path, context, program_kind, notes);
    if (by_kind[kind].empty()) kind_order.push_back(kind);
    by_kind[kind].push_back(&run);
  }
  if (by_kind.empty()) throw UsageError(path + ": nccl-tests output without a result line");
  AltDocument alt;
  alt.path = path;
  std::set<int> ranks, hosts;
  std::set<bool> graph;
  for (const std::string& kind : kind_order) {
    const NcclTestsRun& run = choose_run(by_kind[kind], kind, path, context, notes);
    if (const std::string said = "ranks: " + run.ranks_source;
        std::find(notes.begin(), notes.end(), said) == notes.end())
      notes.push_back(said);
    if (run.ranks > 0) ranks.insert(run.ranks);
    if (run.hosts > 0) hosts.insert(run.hosts);
    if (run.graph) graph.insert(*run.graph);
    for (const NcclTestsRow& row : read_rows(run, notes, path)) {
      AltCurve key;
      key.kind = kind;
      key.dtype = row.dtype;
      add_point(alt.curves, key, AltPoint{row.bytes, row.time_us, std::nullopt});
    }
  }
  alt.ranks = ranks.size() == 1 ? *ranks.begin() : 0;
  if (ranks.size() > 1)
    notes.push_back(
        fmt::format("its runs are of {} ranks: no one rank count is said", fmt::join(ranks, ", ")));
  alt.hosts = hosts.empty() ? 0 : *hosts.rbegin();
  if (alt.hosts > 1)
    alt.mismatches.push_back(
        fmt::format("its ranks ran on {} hosts: its op times include the network between hosts", alt.hosts));
  if (graph.size() == 1) alt.launch = *graph.begin() ? "graph" : "eager";
  notes.push_back("nccl-tests gives one time per size (a mean over its iterations): p90 is taken as p50");
  alt.notes = std::move(notes);
  return alt;
}

}  // namespace k25
