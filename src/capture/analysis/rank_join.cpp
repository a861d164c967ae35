// Joining of the ranks of each communicator on (kind, sequence number), and the communicator's op sequence.
#include "capture/analysis/rank_join.hpp"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

namespace k25 {
namespace {

// Every stream of one communicator id, before a stream per rank is chosen.
struct CommStreams {
  std::vector<std::uint32_t> streams;
};

std::vector<std::uint64_t> records_per_stream(const InspectorCapture& capture, bool p2p) {
  std::vector<std::uint64_t> counts(capture.streams.size(), 0);
  for (const OpRecord& op : capture.ops)
    if (op.p2p == p2p) ++counts[op.stream];
  return counts;
}

}  // namespace

std::vector<CommunicatorOps> join_ranks(const InspectorCapture& capture) {
  const std::vector<std::uint64_t> coll_count = records_per_stream(capture, false);
  const std::vector<std::uint64_t> p2p_count = records_per_stream(capture, true);

  // Streams by communicator id, in order of first appearance.
  std::map<std::string, std::size_t> comm_index;
  std::vector<CommStreams> groups;
  for (std::uint32_t s = 0; s < capture.streams.size(); ++s) {
    const auto [it, added] = comm_index.emplace(capture.streams[s].comm_id, groups.size());
    if (added) groups.emplace_back();
    groups[it->second].streams.push_back(s);
  }

  // Records of each stream, in file order.
  std::vector<std::vector<std::uint32_t>> stream_ops(capture.streams.size());
  for (std::uint32_t i = 0; i < capture.ops.size(); ++i) stream_ops[capture.ops[i].stream].push_back(i);

  std::vector<CommunicatorOps> result;
  for (const CommStreams& group : groups) {
    CommunicatorOps comm;
    const RankStream& first = capture.streams[group.streams.front()];
    comm.id = first.comm_id;
    comm.name = first.comm_name;
    comm.nnodes = first.nnodes;
    for (std::uint32_t s : group.streams) comm.n_ranks = std::max(comm.n_ranks, capture.streams[s].n_ranks);

    // One stream per rank: the one with the most records; a second process claiming the rank is noted.
    std::map<int, std::uint32_t> chosen;
    for (std::uint32_t s : group.streams) {
      const RankStream& stream = capture.streams[s];
      const auto total = [&](std::uint32_t x) { return coll_count[x] + p2p_count[x]; };
      const auto [it, added] = chosen.emplace(stream.rank, s);
      if (added) continue;
      const std::uint32_t keep = total(s) > total(it->second) ? s : it->second;
      const std::uint32_t drop = keep == s ? it->second : s;
      comm.conflicts.push_back(fmt::format(
          "rank {} was written by two processes: kept {}:{} ({} records), ignored {}:{} ({} records)",
          stream.rank, capture.streams[keep].hostname, capture.streams[keep].pid, total(keep),
          capture.streams[drop].hostname, capture.streams[drop].pid, total(drop)));
      it->second = keep;
    }
    comm.missing_rank_count = comm.n_ranks - static_cast<int>(chosen.size());
    for (int r = 0; r < comm.n_ranks && comm.missing_ranks.size() < kMaxListedRanks; ++r)
      if (!chosen.contains(r)) comm.missing_ranks.push_back(r);
    for (const auto& [r, s] : chosen) {
      const RankStream& stream = capture.streams[s];
      comm.ranks.push_back(r);
      comm.rank_host[r] = fmt::format("{}:{}", stream.hostname, stream.pid);
      comm.format_versions.insert(stream.format_version);
      if (comm.name.empty()) comm.name = stream.comm_name;
      comm.dump_markers += stream.dump_markers;
      comm.coll_dropped_reported += std::max(stream.coll_dropped_total, stream.coll_dropped_since_sum);
      comm.p2p_dropped_reported += std::max(stream.p2p_dropped_total, stream.p2p_dropped_since_sum);
    }

    // Collective records of the kept streams, sorted by (kind, sn, rank, file order) and joined.
    struct Keyed {
      std::uint16_t kind;
      std::uint64_t sn;
      int rank;
      std::uint32_t op;
    };
    std::vector<Keyed> keyed;
    int reference_rank = -1;
    std::uint64_t reference_count = 0;
    for (const auto& [rank, s] : chosen) {
      if (coll_count[s] > reference_count) {
        reference_count = coll_count[s];
        reference_rank = rank;
      }
      for (std::uint32_t i : stream_ops[s]) {
        const OpRecord& op = capture.ops[i];
        if (op.p2p) {
          comm.p2p.push_back(i);
          ++comm.p2p_records;
          continue;
        }
        ++comm.coll_records;
        ++comm.timing_sources[capture.timing_sources[op.timing_source]];
        keyed.push_back({op.kind, op.sn, rank, i});
      }
    }
    std::sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
      return std::tie(a.kind, a.sn, a.rank, a.op) < std::tie(b.kind, b.sn, b.rank, b.op);
    });
    for (std::size_t i = 0; i < keyed.size();) {
      std::size_t j = i;
      JoinedOp joined;
      joined.kind = keyed[i].kind;
      joined.sn = keyed[i].sn;
      const OpRecord& lowest = capture.ops[keyed[i].op];
      joined.bytes = lowest.bytes;
      joined.step = lowest.step;
      joined.phase = lowest.phase;
      joined.launch = lowest.launch;
      joined.bytes_source = lowest.bytes_source;
      int previous_rank = -1;
      bool have_time = false;
      for (; j < keyed.size() && keyed[j].kind == joined.kind && keyed[j].sn == joined.sn; ++j) {
        if (keyed[j].rank == previous_rank) {
          ++comm.duplicate_records;
          continue;
        }
        previous_rank = keyed[j].rank;
        const OpRecord& op = capture.ops[keyed[j].op];
        ++joined.ranks_present;
        if (op.bytes != joined.bytes) joined.size_mismatch = true;
        if (!have_time || op.exec_us > joined.exec_us) {
          have_time = true;
          joined.exec_us = op.exec_us;
          joined.slowest_rank = keyed[j].rank;
          joined.busbw_gbps = op.busbw_gbps;
        }
        if (op.start_ts != 0 && (joined.start_ts == 0 || op.start_ts < joined.start_ts))
          joined.start_ts = op.start_ts;
      }
      comm.ops.push_back(joined);
      i = j;
    }

    // The reference rank's sequence.
    comm.reference_rank = reference_rank;
    if (reference_rank >= 0) {
      std::vector<std::uint32_t> records;
      for (std::uint32_t i : stream_ops[chosen.at(reference_rank)])
        if (!capture.ops[i].p2p) records.push_back(i);
      comm.sequence_by_timestamp =
          !records.empty() && std::all_of(records.begin(), records.end(),
                                          [&](std::uint32_t i) { return capture.ops[i].start_ts != 0; });
      if (comm.sequence_by_timestamp) {
        std::stable_sort(records.begin(), records.end(), [&](std::uint32_t a, std::uint32_t b) {
          return capture.ops[a].start_ts < capture.ops[b].start_ts;
        });
      }
      std::vector<bool> placed(comm.ops.size(), false);
      comm.sequence.reserve(records.size());
      for (std::uint32_t i : records) {
        const OpRecord& op = capture.ops[i];
        const auto it =
            std::lower_bound(comm.ops.begin(), comm.ops.end(), op, [](const JoinedOp& a, const OpRecord& b) {
              return std::tie(a.kind, a.sn) < std::tie(b.kind, b.sn);
            });
        const auto index = static_cast<std::size_t>(it - comm.ops.begin());
        if (placed[index]) continue;  // a duplicate record
        placed[index] = true;
        comm.sequence.push_back(static_cast<std::uint32_t>(index));
      }
    }
    result.push_back(std::move(comm));
  }
  std::stable_sort(result.begin(), result.end(), [](const CommunicatorOps& a, const CommunicatorOps& b) {
    return a.coll_records + a.p2p_records > b.coll_records + b.p2p_records;
  });
  return result;
}

}  // namespace k25
