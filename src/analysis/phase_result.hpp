// One measured point of the sweep, as the report carries it: (phase, requested tokens, mode) with its
// distributions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/stats.hpp"
#include "config/run_config.hpp"

namespace k25 {

// Decode mode's own figures (mode == decode only).
struct DecodeFigures {
  double gap_configured_us =
      0;               // the step's configured gaps without skew (sweep.decode_*), same on every rank
  double skew_us = 0;  // sweep.decode_skew_us: each gap of a rank is longer by up to this
  std::string
      shape;  // the gaps and skew in one line (plan/decode_gaps.hpp shape_key); empty in older reports
  double gap_expected_us = 0;  // the coordinator's configured gaps of one step, its skew included
  Stats gap_measured_us;       // the coordinator's gaps of one step as its clock measured them, per trial
  Stats comm_us;               // communication within a step: step minus that rank's measured gaps, max over
                               // ranks per trial
  // Derived (analysis, recomputed on read) where an eager result of the same phase and tokens exists:
  std::optional<double> join_cost;               // op_us p50 here / eager op_us p50 (back to back)
  std::optional<double> comm_over_back_to_back;  // comm_us p50 / eager step_us p50
};

struct PhaseResult {
  Phase phase = Phase::allreduce;
  std::optional<CollectiveKind>
      kind_issued;           // what every op of the phase issues; unset: the phase's usual kind
  int tokens = 0;            // tokens measured: in graph mode padded to the next capture size
  int requested_tokens = 0;  // tokens the sweep asked for (= tokens in eager mode, or where no padding)
  // Graph mode: requested_tokens is above the largest capture size (sweep.graph_sizes), so it was not padded;
  // vLLM runs such a batch eagerly.
  bool above_graph_sizes = false;
  TimingMode mode = TimingMode::eager;
  Dtype dtype = Dtype::bf16;
  int ranks = 0;
  int ops_per_step = 0;
  std::uint64_t bytes_per_op = 0;  // all but All-to-Allv: the op's size as nccl-tests counts it
  double bytes_per_rank_mean = 0;  // All-to-Allv: bytes one rank sends per op, mean over ranks and ops
  double bytes_per_rank_max = 0;   // All-to-Allv: largest bytes any rank sends in any op
  CollectiveKind kind() const;     // kind_issued or the default
  bool per_rank_bytes() const {
    return kind() == CollectiveKind::alltoallv;
  }                          // bytes_per_rank, not bytes_per_op
  int iterations = 0;        // timed trials (whole bursts)
  int op_iterations = 0;     // trials of the per-op pass
  Stats step_us;             // one decode step's burst, per trial, max over ranks (us)
  Stats op_us;               // one op, max over ranks (us)
  std::string op_us_source;  // "per_op_pass": timed op by op; "step_over_ops": graph step / ops_per_step
  double algbw_gbps = 0;     // bytes per rank per op / (p50 step time / ops_per_step), GB/s = 1e9 B/s
  double busbw_gbps = 0;     // algbw x 2(n-1)/n (AllReduce) or x (n-1)/n (All-to-All), as nccl-tests
  std::optional<double>
      busbw_max_gbps;  // All-to-All: busbw from bytes_per_rank.max (the hot rank sets the step)
  // Host time to enqueue one step's burst, per trial, max over ranks (us); absent where the transport
  // completes each op before launch returns (host transport: the launch is the step).
  std::optional<Stats> launch_us;
  bool launch_bound = false;  // launch_us p50 > half of step_us p50: the step measures the host's launch cost
  bool device_only = false;   // the stream was held until the burst was enqueued (--device-only)
  std::optional<double> link_fraction;  // busbw / the link's per-direction limit, where the topology is known
  std::uint64_t wrong = 0;              // wrong elements summed over ranks in the correctness pass
  bool checked = false;                 // whether the correctness pass ran
  int slowest_rank = 0;  // the rank the others waited for: latest median arrival at the step (host clock)
  double arrival_lead_us = 0;  // how much later it arrived than the median rank (us): near 0, no straggler
  std::optional<DecodeFigures> decode;  // decode mode only
  // Who ran the burst (--allreduce-backends): the transport's own collective ("nccl", "mpi") or a peer
  // backend
  // ("oneshot", "twoshot", "oneshot-pull"), or a variant merged from another report (`k25comm report
  // --backends-from`: "nccl NCCL_PROTO=LL"). Reports before the field: the transport's own.
  std::string backend;
  // Why this backend did not run the point (its buffers are smaller than an op, no P2P between two GPUs,
  // ...): a row with no figures; empty where it ran.
  std::string not_run;
  bool ran() const { return not_run.empty(); }
};

void to_json(nlohmann::json& j, const PhaseResult& r);
void from_json(const nlohmann::json& j, PhaseResult& r);

// The kind a phase issues where a report does not say (reports before the field: AllReduce, or All-to-Allv
// for dispatch and combine).
CollectiveKind default_kind(Phase phase);

// String <-> enum for the report's fields; parse_* throw std::invalid_argument on an unknown name.
Phase parse_phase(const std::string& name);
TimingMode parse_mode(const std::string& name);
Dtype parse_dtype(const std::string& name);

}  // namespace k25
