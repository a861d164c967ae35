// The trace analysis beside the replay: the trace's collective kernels as op records of one communicator
// (kTraceCommunicatorId), sequence numbers per kind lined up across ranks by time, for the communicator
// analysis (the replay comparison, --emit-config).
#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "capture/analysis/trace_work.hpp"

namespace k25 {
namespace {

// The files as the records' inputs.
void add_files(const TraceCapture& trace, InspectorCapture& rec) {
  for (const TraceFile& f : trace.files) {
    InputFile in;
    in.path = f.path;
    in.format = f.format;
    in.trace_events = f.events;
    in.gpu_activities = f.kernels + f.copies;
    in.graph_launches = f.graph_launches;
    in.kernels = f.kernels;
    in.step_marks = f.step_marks;
    in.cut = f.cut;
    in.cut_reason = f.cut_reason;
    rec.files.push_back(std::move(in));
  }
}

using KindLists = std::map<std::uint16_t, std::vector<std::uint32_t>>;

KindLists by_kind(const TraceWork& work, const RankWork& w) {
  KindLists lists;
  for (std::uint32_t i : w.comm) lists[work.classes.kind_of(work.trace.activities[i])].push_back(i);
  return lists;
}

// Where `list`'s first collectives (up to 16 tried) line up with the reference rank's: the offset of the
// reference's collective the first of them overlaps most; nullopt where none overlaps.
std::optional<std::int64_t> ordinal_offset(const TraceWork& work, const std::vector<std::uint32_t>& list,
                                           const std::vector<std::uint32_t>& ref) {
  const std::vector<GpuActivity>& acts = work.trace.activities;
  std::optional<std::int64_t> offset;
  for (std::size_t i = 0; i < list.size() && i < 16 && !offset; ++i) {
    const GpuActivity& a = acts[list[i]];
    const auto at = std::lower_bound(ref.begin(), ref.end(), a.start_ns,
                                     [&](std::uint32_t x, std::int64_t t) { return acts[x].end_ns < t; });
    std::int64_t best = 0;
    for (auto it = at; it != ref.end() && acts[*it].start_ns < a.end_ns; ++it) {
      const GpuActivity& b = acts[*it];
      const std::int64_t overlap = std::min(a.end_ns, b.end_ns) - std::max(a.start_ns, b.start_ns);
      if (overlap > best) {
        best = overlap;
        offset = (it - ref.begin()) - static_cast<std::int64_t>(i);
      }
    }
  }
  return offset;
}

// Ordinal offsets: a rank's first collective of a kind lines up with the reference rank's one it overlaps
// most. `lowest` is the smallest offset (0 or below).
using Offsets = std::map<std::pair<const RankWork*, std::uint16_t>, std::int64_t>;

Offsets ordinal_offsets(const TraceWork& work, const RankWork& reference, TraceResult& r,
                        std::int64_t& lowest) {
  Offsets offset;
  lowest = 0;
  if (reference.comm.empty()) return offset;
  const KindLists ref_kind = by_kind(work, reference);
  for (const RankWork& w : work.ranks) {
    if (&w == &reference) continue;
    for (const auto& [k, list] : by_kind(work, w)) {
      const auto ref = ref_kind.find(k);
      const std::optional<std::int64_t> found =
          ref == ref_kind.end() ? std::nullopt : ordinal_offset(work, list, ref->second);
      if (found) offset[{&w, k}] = *found;
      if (!found && ref != ref_kind.end() && work.trace.ranks[w.index].absolute_clock)
        r.notes.push_back(fmt::format(
            "rank {}: its {} kernels overlap none of rank {}'s: numbered from its first",
            work.trace.ranks[w.index].rank, work.classes.kinds()[k], work.trace.ranks[reference.index].rank));
      lowest = std::min(lowest, offset[{&w, k}]);
    }
  }
  return offset;
}

RankStream rank_stream(const TraceWork& work, const RankWork& w, int n_ranks) {
  const TraceRank& rank = work.trace.ranks[w.index];
  RankStream stream;
  stream.comm_id = kTraceCommunicatorId;
  stream.rank = rank.rank;
  stream.n_ranks = std::max(n_ranks, 1);
  stream.hostname = std::filesystem::path(work.trace.files[rank.file].path).filename().string();
  stream.format_version = to_string(work.trace.files[rank.file].format);
  stream.file = rank.file;
  return stream;
}

OpRecord op_record(const TraceWork& work, const RankWork& w, std::size_t c) {
  const GpuActivity& a = work.trace.activities[w.comm[c]];
  OpRecord op;
  op.kind = work.classes.kind_of(a);
  op.bytes = a.bytes;
  op.exec_us = to_us(a.end_ns - a.start_ns);
  op.start_ts = a.start_ns > 0 ? static_cast<std::uint64_t>(a.start_ns / 1000) : 0;
  op.launch = static_cast<std::uint8_t>(a.launch);
  op.bytes_source = w.comm_source[c];
  if (w.comm_step[c] >= 0) {
    const auto s = static_cast<std::size_t>(w.comm_step[c]);
    const StepPhase phase = w.steps[s].phase;
    op.step = w.joined[s];
    op.phase = phase == StepPhase::unknown ? '?' : to_string(phase)[0];  // OpRecord::phase
  }
  op.busbw_gbps = op.algbw_gbps = std::nan("");
  return op;
}

}  // namespace

InspectorCapture trace_records(const TraceWork& work, TraceResult& r) {
  InspectorCapture rec;
  add_files(work.trace, rec);
  rec.kinds = work.classes.kinds();
  rec.timing_sources = {"kernel_gpu"};
  const RankWork* reference = nullptr;
  for (const RankWork& w : work.ranks)
    if (!reference || w.comm.size() > reference->comm.size()) reference = &w;
  int n_ranks = 0;
  for (const TraceRank& rank : work.trace.ranks)
    n_ranks = std::max({n_ranks, rank.world_size, rank.rank + 1});
  std::int64_t lowest = 0;
  const Offsets offset = reference ? ordinal_offsets(work, *reference, r, lowest) : Offsets{};
  std::size_t collectives = 0;
  for (const RankWork& w : work.ranks) collectives += w.comm.size();
  rec.ops.reserve(collectives);
  for (const RankWork& w : work.ranks) {
    if (w.comm.empty()) continue;
    const auto stream_index = static_cast<std::uint32_t>(rec.streams.size());
    rec.streams.push_back(rank_stream(work, w, n_ranks));
    std::map<std::uint16_t, std::uint64_t> ordinal;
    for (std::size_t c = 0; c < w.comm.size(); ++c) {
      OpRecord op = op_record(work, w, c);
      op.stream = stream_index;
      const auto found = offset.find({&w, op.kind});
      op.sn = static_cast<std::uint64_t>(static_cast<std::int64_t>(ordinal[op.kind]++) +
                                         (found == offset.end() ? 0 : found->second) - lowest);
      rec.files[work.trace.ranks[w.index].file].coll_records += 1;
      rec.ops.push_back(op);
    }
  }
  return rec;
}

}  // namespace k25
