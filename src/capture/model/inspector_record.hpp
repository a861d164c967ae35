// What NCCL's Inspector plugin wrote, as read from its files: one record per completed collective or P2P op,
// grouped by the (communicator, rank) stream of the process that wrote it.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "analysis/capture_input_file.hpp"

namespace k25 {

// One rank of one communicator as one process's file shows it (header + metadata of its records).
struct RankStream {
  std::string comm_id;    // header.id: the communicator's hash, as the Inspector prints it (hex)
  std::string comm_name;  // header.comm_name (v4.2 and later; "unknown" when unnamed); empty before
  int rank = 0;
  int n_ranks = 0;
  std::uint64_t nnodes = 0;
  std::string hostname;
  std::uint64_t pid = 0;
  std::string format_version;  // metadata.inspector_output_format_version of its first record
  std::size_t file = 0;        // index into InspectorCapture::files
  // From dump_stats records (v4.2 and later): markers seen, the last cumulative drop counts, and the sum of
  // the per-dump ones (they should agree; both are kept because a file may start after drops began).
  std::uint64_t dump_markers = 0;
  std::uint64_t coll_dropped_total = 0, p2p_dropped_total = 0;
  std::uint64_t coll_dropped_since_sum = 0, p2p_dropped_since_sum = 0;
};

// One completed op of one rank. Times are the Inspector's: integer microseconds.
struct OpRecord {
  std::uint32_t stream = 0;        // index into InspectorCapture::streams
  std::uint16_t kind = 0;          // index into InspectorCapture::kinds ("AllReduce", "Send", ...)
  std::uint8_t timing_source = 0;  // index into InspectorCapture::timing_sources ("kernel_gpu", ...)
  bool p2p = false;                // from p2p_perf (Send/Recv) rather than coll_perf
  std::int32_t peer = -1;          // p2p_peer; -1 for collectives
  std::uint64_t sn = 0;            // coll_sn / p2p_sn: per communicator and per kind, as NCCL counts them
  std::uint64_t bytes = 0;         // coll_msg_size_bytes / p2p_msg_size_bytes
  double exec_us = 0;              // coll_exec_time_us / p2p_exec_time_us (a trace's kernel time: fractional)
  double algbw_gbps = 0, busbw_gbps = 0;  // the Inspector's figures (NaN where it wrote "nan")
  std::uint64_t start_ts = 0;  // event_trace_ts.coll_start_ts / p2p_start_ts (verbose output only; else 0)
  std::uint64_t dump_ts = 0;   // metadata.dump_timestamp_us of the record or of its dump's marker
  // From a profiler trace only: the step the trace analysis put the op in (-1: none; the same number on every
  // rank), its phase ('d' decode, 'p' prefill, '-'), how it was launched and where its size came from.
  std::int64_t step = -1;
  char phase = '-';
  std::uint8_t launch = 0;        // LaunchMode (capture/trace_model.hpp): 0 unknown (the Inspector's records)
  std::uint8_t bytes_source = 0;  // 0 recorded (Inspector, or the trace), 1 the model, 2 unknown
};

// How an op was launched (capture.json "mode"): "" where the input does not say.
inline const char* launch_mode_name(std::uint8_t launch) {
  return launch == 1 ? "eager" : launch == 2 ? "graph" : "";
}

// Where an op's size came from (capture.json "bytes_source").
inline const char* bytes_source_name(std::uint8_t source) {
  return source == 1 ? "model" : source == 2 ? "unknown" : "trace";
}

struct InspectorCapture {
  std::vector<InputFile> files;
  std::vector<RankStream> streams;
  std::vector<OpRecord> ops;  // in file order within each file, files in the order read
  std::vector<std::string> kinds;
  std::vector<std::string> timing_sources;
  std::vector<std::string> notes;  // skipped files and the like
};

}  // namespace k25
