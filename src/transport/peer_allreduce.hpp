// What the peer all-reduce backends (oneshot, twoshot, oneshot-pull) share on the host transport and on GPUs:
// their options, the layout of the buffer every rank exposes to its peers, how two-shot splits an op between
// the ranks, and which ops they take. Pure data: the algorithms themselves are in host_peer_allreduce.cpp and
// kernels/peer_allreduce.cu, and follow the same steps (docs/allreduce-backends.md).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "common/error.hpp"
#include "common/vocabulary.hpp"
#include "plan/collective_op.hpp"

namespace k25 {

// The most ranks a peer backend runs (vLLM's custom all-reduce: 2, 4, 6 or 8 GPUs); beyond it every row of
// the backend says so.
inline constexpr int kMaxPeerRanks = 8;
// Barriers per op, each a row of flags: the start (every rank's data is in place) and the end (every rank has
// read what the next op overwrites).
inline constexpr int kPeerBarriers = 2;
// The GPU kernels' largest grid: each block keeps its own flags (block b of a rank meets block b of its
// peers).
inline constexpr int kMaxPeerBlocks = 32;
// Bytes of one flag: a 32-bit epoch counter alone in its cache line (no false sharing between writers).
inline constexpr std::size_t kPeerFlagStride = 64;
// The GPU kernels move 16-byte vectors: an op of the peer backends is a whole number of them.
inline constexpr std::size_t kPeerVectorBytes = 16;

struct PeerAllreduceOptions {
  AllreduceBackend algorithm = AllreduceBackend::oneshot;
  std::size_t max_op_bytes = 8u << 20;  // transport.peer_max_bytes: the largest op the buffers take
  double timeout_s = 60.0;              // a barrier not met within this ends the run (BackendHang)
  bool in_place = false;
  bool epilogue = false;  // --allreduce-epilogue add-rmsnorm: room for the fused epilogue's outputs
  bool leave_out_own_input = false;  // test only (--inject-wrong): the sum leaves out this rank's own input
};

// One rank's exposed buffer, byte offsets from its start. Flags: [block][barrier][from rank], each
// kPeerFlagStride bytes, written by the peers (a rank's arrival) and read by the owner. Slots: oneshot, one
// per rank (rank q pushes its input into slot q); twoshot, one per rank holding that rank's part of this
// rank's chunk; oneshot-pull, one (the rank's own input, read by the peers). Gather (twoshot): the whole
// reduced op, each rank's chunk pushed into every rank's; with the epilogue, the normed output after it.
struct PeerBufferLayout {
  std::size_t flags_offset = 0;
  std::size_t slots_offset = 0;
  std::size_t slot_bytes = 0;
  int slots = 0;
  std::size_t gather_offset = 0;
  std::size_t gather_bytes = 0;  // one output's worth; doubled with the epilogue
  std::size_t total_bytes = 0;
  std::size_t flag_offset(int block, int barrier, int from_rank) const {
    return flags_offset +
           ((static_cast<std::size_t>(block) * kPeerBarriers + static_cast<std::size_t>(barrier)) *
                kMaxPeerRanks +
            static_cast<std::size_t>(from_rank)) *
               kPeerFlagStride;
  }
  std::size_t slot_offset(int slot) const {
    return slots_offset + static_cast<std::size_t>(slot) * slot_bytes;
  }
};
// For ops of at most `max_op_bytes` (whose epilogue rows are at most `max_row_bytes` each; 0: no epilogue)
// among `ranks` ranks, with `blocks` flag rows.
PeerBufferLayout peer_buffer_layout(AllreduceBackend algorithm, int ranks, std::size_t max_op_bytes,
                                    std::size_t max_row_bytes, int blocks);

// The part of an op that rank `rank` reduces in two-shot: elements [first, first + count). Without the
// epilogue the op is split in whole 16-byte vectors; with it (rows > 0) in whole rows, so that each rank
// normalizes the rows it reduced.
struct PeerChunk {
  std::size_t first = 0;
  std::size_t count = 0;
};
PeerChunk twoshot_chunk(int rank, int ranks, std::size_t count, Dtype dtype, std::size_t rows);

// Why the backend cannot run `op` of `burst` (an empty optional where it can): not an AllReduce, an element
// type it does not sum, more bytes than its buffers hold, not a whole number of 16-byte vectors (GPU only).
std::optional<std::string> peer_op_refusal(const PeerAllreduceOptions& options, const OpBurst& burst,
                                           std::size_t op_index, bool gpu);

// A backend that cannot run an op: the row of that point says why (exit 2 if it escapes the measure loop).
class BackendRefused : public Error {
 public:
  explicit BackendRefused(const std::string& message) : Error(ExitCode::bad_usage, message) {}
};

// A backend whose ranks did not all arrive at one of its barriers within the watchdog's bound: the run ends
// with exit 3 after the coordinator wrote report.json and report.md with every backend measured before.
class BackendHang : public RuntimeFault {
 public:
  using RuntimeFault::RuntimeFault;
};

// "ranks 1 and 3" of a bit mask of ranks.
std::string rank_list(unsigned mask);

}  // namespace k25
