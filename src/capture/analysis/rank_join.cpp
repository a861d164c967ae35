// Joining of the ranks of each communicator on (kind, sequence number), and the communicator's op sequence.
#include "capture/analysis/rank_join.hpp"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

namespace k25 {
namespace {

std::vector<std::uint64_t> records_per_stream(const InspectorCapture& capture, bool p2p) {
  std::vector<std::uint64_t> counts(capture.streams.size(), 0);
  for (const OpRecord& op : capture.ops)
    if (op.p2p == p2p) ++counts[op.stream];
  return counts;
}

// What every communicator's join reads: the records per stream and each stream's records in file order.
struct StreamRecords {
  std::vector<std::uint64_t> coll_count, p2p_count;
  std::vector<std::vector<std::uint32_t>> ops;
  std::uint64_t total(std::uint32_t stream) const { return coll_count[stream] + p2p_count[stream]; }
};

StreamRecords stream_records(const InspectorCapture& capture) {
  StreamRecords records{records_per_stream(capture, false), records_per_stream(capture, true),
                        std::vector<std::vector<std::uint32_t>>(capture.streams.size())};
  for (std::uint32_t i = 0; i < capture.ops.size(); ++i) records.ops[capture.ops[i].stream].push_back(i);
  return records;
}

// The streams of each communicator id, in order of first appearance.
std::vector<std::vector<std::uint32_t>> streams_by_comm(const InspectorCapture& capture) {
  std::map<std::string, std::size_t> comm_index;
  std::vector<std::vector<std::uint32_t>> groups;
  for (std::uint32_t s = 0; s < capture.streams.size(); ++s) {
    const auto [it, added] = comm_index.emplace(capture.streams[s].comm_id, groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(s);
  }
  return groups;
}

// One stream per rank: the one with the most records; a second process claiming the rank is noted.
std::map<int, std::uint32_t> choose_streams(const InspectorCapture& capture,
                                            const std::vector<std::uint32_t>& group,
                                            const StreamRecords& records, CommunicatorOps& comm) {
  std::map<int, std::uint32_t> chosen;
  for (std::uint32_t s : group) {
    const RankStream& stream = capture.streams[s];
    const auto [it, added] = chosen.emplace(stream.rank, s);
    if (added) continue;
    const std::uint32_t keep = records.total(s) > records.total(it->second) ? s : it->second;
    const std::uint32_t drop = keep == s ? it->second : s;
    comm.conflicts.push_back(fmt::format(
        "rank {} was written by two processes: kept {}:{} ({} records), ignored {}:{} ({} records)",
        stream.rank, capture.streams[keep].hostname, capture.streams[keep].pid, records.total(keep),
        capture.streams[drop].hostname, capture.streams[drop].pid, records.total(drop)));
    it->second = keep;
  }
  return chosen;
}

// The communicator's facts from its streams: ranks present and missing, hosts, formats, drops reported.
void rank_facts(const InspectorCapture& capture, const std::vector<std::uint32_t>& group,
                const std::map<int, std::uint32_t>& chosen, CommunicatorOps& comm) {
  const RankStream& first = capture.streams[group.front()];
  comm.id = first.comm_id;
  comm.name = first.comm_name;
  comm.nnodes = first.nnodes;
  for (std::uint32_t s : group) comm.n_ranks = std::max(comm.n_ranks, capture.streams[s].n_ranks);
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
}

// A collective record keyed for the join.
struct Keyed {
  std::uint16_t kind;
  std::uint64_t sn;
  int rank;
  std::uint32_t op;
};

// The kept streams' collective records, sorted by (kind, sn, rank, file order); P2P records counted aside.
// `reference_rank`: the rank with the most collective records (-1: none).
std::vector<Keyed> keyed_records(const InspectorCapture& capture, const std::map<int, std::uint32_t>& chosen,
                                 const StreamRecords& records, CommunicatorOps& comm, int& reference_rank) {
  std::vector<Keyed> keyed;
  reference_rank = -1;
  std::uint64_t reference_count = 0;
  for (const auto& [rank, s] : chosen) {
    if (records.coll_count[s] > reference_count) {
      reference_count = records.coll_count[s];
      reference_rank = rank;
    }
    for (std::uint32_t i : records.ops[s]) {
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
  return keyed;
}

// The records of one (kind, sn), keyed[i..], as one op: the slowest rank's time, the earliest start; returns
// the position after them.
std::size_t join_one(const InspectorCapture& capture, const std::vector<Keyed>& keyed, std::size_t i,
                     CommunicatorOps& comm) {
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
  std::size_t j = i;
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
  return j;
}

// The reference rank's sequence: its collective records in file order (by start timestamp where every one
// has one), each joined op once.
void reference_sequence(const InspectorCapture& capture, const std::vector<std::uint32_t>& stream_ops,
                        CommunicatorOps& comm) {
  std::vector<std::uint32_t> records;
  for (std::uint32_t i : stream_ops)
    if (!capture.ops[i].p2p) records.push_back(i);
  comm.sequence_by_timestamp =
      !records.empty() && std::all_of(records.begin(), records.end(),
                                      [&](std::uint32_t i) { return capture.ops[i].start_ts != 0; });
  if (comm.sequence_by_timestamp)
    std::stable_sort(records.begin(), records.end(), [&](std::uint32_t a, std::uint32_t b) {
      return capture.ops[a].start_ts < capture.ops[b].start_ts;
    });
  std::vector<bool> placed(comm.ops.size(), false);
  comm.sequence.reserve(records.size());
  for (std::uint32_t i : records) {
    const OpRecord& op = capture.ops[i];
    const auto it = std::lower_bound(
        comm.ops.begin(), comm.ops.end(), op,
        [](const JoinedOp& a, const OpRecord& b) { return std::tie(a.kind, a.sn) < std::tie(b.kind, b.sn); });
    const auto index = static_cast<std::size_t>(it - comm.ops.begin());
    if (placed[index]) continue;  // a duplicate record
    placed[index] = true;
    comm.sequence.push_back(static_cast<std::uint32_t>(index));
  }
}

CommunicatorOps join_communicator(const InspectorCapture& capture, const std::vector<std::uint32_t>& group,
                                  const StreamRecords& records) {
  CommunicatorOps comm;
  const std::map<int, std::uint32_t> chosen = choose_streams(capture, group, records, comm);
  rank_facts(capture, group, chosen, comm);
  int reference_rank = -1;
  const std::vector<Keyed> keyed = keyed_records(capture, chosen, records, comm, reference_rank);
  for (std::size_t i = 0; i < keyed.size();) i = join_one(capture, keyed, i, comm);
  comm.reference_rank = reference_rank;
  if (reference_rank >= 0) reference_sequence(capture, records.ops[chosen.at(reference_rank)], comm);
  return comm;
}

}  // namespace

std::vector<CommunicatorOps> join_ranks(const InspectorCapture& capture) {
  const StreamRecords records = stream_records(capture);
  std::vector<CommunicatorOps> result;
  for (const std::vector<std::uint32_t>& group : streams_by_comm(capture))
    result.push_back(join_communicator(capture, group, records));
  std::stable_sort(result.begin(), result.end(), [](const CommunicatorOps& a, const CommunicatorOps& b) {
    return a.coll_records + a.p2p_records > b.coll_records + b.p2p_records;
  });
  return result;
}

}  // namespace k25
