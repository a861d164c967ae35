// Joins the ranks of each communicator: one JoinedOp per (kind, sequence number) with the slowest rank's
// time, and the communicator's op sequence as its best-recorded rank saw it.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "capture/model/inspector_record.hpp"

namespace k25 {

// One collective as the ranks of its communicator recorded it. NCCL numbers collectives per communicator and
// per kind (comm->seqNumber[func]), the same on every rank, so (kind, sn) identifies an op across ranks.
struct JoinedOp {
  std::uint16_t kind = 0;
  std::uint64_t sn = 0;
  std::uint64_t bytes = 0;     // the lowest rank's coll_msg_size_bytes (size_mismatch when ranks disagree)
  double exec_us = 0;          // max over the ranks that recorded it: the slowest rank sets the op's time
  int slowest_rank = 0;        // the rank with that time (the lowest one on a tie)
  int ranks_present = 0;       // ranks with a record of this op
  bool size_mismatch = false;  // ranks recorded different sizes
  double busbw_gbps = 0;       // the slowest rank's coll_busbw_gbs (NaN where the Inspector wrote "nan")
  std::uint64_t start_ts = 0;  // the earliest event_trace_ts start over ranks (verbose output), else 0
  std::int64_t step = -1;      // a trace's step (its lowest rank's record); -1 for the Inspector's
  char phase = '-';
  std::uint8_t launch = 0, bytes_source = 0;  // as OpRecord
};

// Missing ranks listed by number (a damaged header may claim millions of ranks; the count is kept whole).
inline constexpr std::size_t kMaxListedRanks = 64;

struct CommunicatorOps {
  std::string id;    // header.id
  std::string name;  // header.comm_name where the format has it
  int n_ranks = 0;
  std::uint64_t nnodes = 0;
  std::vector<int> ranks;                // ranks with a stream, ascending
  int missing_rank_count = 0;            // ranks in 0..n_ranks-1 without any record
  std::vector<int> missing_ranks;        // the first kMaxListedRanks of them
  std::map<int, std::string> rank_host;  // rank -> "hostname:pid" of the process that wrote it
  std::vector<std::string> conflicts;    // a rank written by two processes: which one was kept
  std::set<std::string> format_versions;
  std::map<std::string, std::uint64_t> timing_sources;  // coll_timing_source -> records
  std::uint64_t coll_records = 0, p2p_records = 0;
  std::uint64_t duplicate_records = 0;  // a rank's second record of the same (kind, sn): ignored
  std::uint64_t dump_markers = 0;
  std::uint64_t coll_dropped_reported = 0, p2p_dropped_reported = 0;  // dump_stats, summed over ranks
  std::vector<JoinedOp> ops;                                          // sorted by (kind, sn)
  int reference_rank = -1;              // the rank with the most collective records (lowest on a tie)
  std::vector<std::uint32_t> sequence;  // indices into ops, in the reference rank's order
  bool sequence_by_timestamp = false;   // ordered by verbose start timestamps; else by the file's order
  std::vector<std::uint32_t> p2p;       // indices into InspectorCapture::ops of the kept ranks' P2P records
};

// Groups streams by communicator id (communicators with most records first), keeps one stream per rank,
// joins collectives on (kind, sn) and builds each communicator's sequence. The reference rank's records keep
// the order its file gives them (the Inspector writes completed collectives in completion order), unless
// every one carries a verbose start timestamp, in which case they are ordered by it.
std::vector<CommunicatorOps> join_ranks(const InspectorCapture& capture);

}  // namespace k25
