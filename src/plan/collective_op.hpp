// What a transport is given: one collective op as this rank issues it (kind, element type, element count,
// per-peer byte counts), with optional local data movement around it. No model: the plan translates its
// phases into these (plan/rank_ops.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/collective_kind.hpp"
#include "common/vocabulary.hpp"

namespace k25 {

// Before the op: send row i = source row rows[i]; rows of row_bytes, source_rows of them.
struct RowGather {
  std::size_t row_bytes = 0;
  std::size_t source_rows = 0;
  std::vector<std::int32_t> rows;
};

// After the op: result row t = sum of the received rows index[offsets[t] .. offsets[t + 1]), rows of
// row_elements elements of `dtype` (summed in fp32).
struct SegmentSum {
  Dtype dtype = Dtype::bf16;
  std::size_t row_elements = 0;
  std::vector<std::int32_t> offsets;  // result rows + 1
  std::vector<std::int32_t> index;
};

struct CollectiveOp {
  CollectiveKind kind = CollectiveKind::allreduce;
  Dtype dtype = Dtype::bf16;
  std::size_t count = 0;  // elements, as kind_info(kind) defines them; All-to-Allv: unused
  std::vector<std::size_t> send_bytes, recv_bytes;  // All-to-Allv: this rank's bytes to / from each peer
  std::string label;                                // what the op is, for messages: "layer 3"
  std::optional<RowGather> gather_before;
  std::optional<SegmentSum> sum_after;
  // Test only (--inject-hang): the rank's stream (host transport: the rank) waits for ever before this op,
  // until the transport's watchdog ends the wait.
  bool stall_before = false;
  // Decode mode: before the op, the rank keeps its stream busy this long (nccl: a GPU busy kernel; mpi: a
  // host busy wait), the compute between two collectives of a real step. Run by Transport::launch_gap.
  double busy_before_us = 0;
  // --allreduce-epilogue add-rmsnorm (AllReduce only): after the sum, the residual add and RMSNorm over this
  // many token rows of count / epilogue_rows elements (the hidden size); 0: no epilogue.
  std::size_t epilogue_rows = 0;
  std::size_t epilogue_row_elements() const { return epilogue_rows > 0 ? count / epilogue_rows : 0; }

  // Bytes of this rank's send and receive buffer for the op among `ranks` ranks.
  std::size_t send_buffer_bytes(int ranks) const;
  std::size_t recv_buffer_bytes(int ranks) const;
};

// The ops of one burst, in issue order, and what the burst is ("allreduce at 16 tokens"), for messages.
struct OpBurst {
  std::string what;
  std::vector<CollectiveOp> ops;
};

// "allreduce at 16 tokens, op 3 of 122 (layer 1)": one op of a burst in words.
std::string op_words(const OpBurst& burst, std::size_t op_index);

}  // namespace k25
