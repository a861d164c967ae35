// The measure loop of one point: warm-up, timed trials of the whole burst (each after a barrier), a separate
// per-op pass, then a correctness pass outside any timed region. Knows nothing of YAML or models.
#pragma once

#include "common/error.hpp"
#include "common/rank_context.hpp"
#include "config/run_config.hpp"
#include "measure/point_samples.hpp"
#include "plan/decode_step_plan.hpp"
#include "transport/transport.hpp"

namespace k25 {

// Thrown on the coordinator alone when a signal arrived while it was inside a trial: it stopped at the op
// boundary instead of finishing the burst (mpirun follows its SIGTERM with SIGKILL about two seconds later,
// less than one burst of a large model may take). The other ranks may be waiting in the next collective, so
// the caller writes what was already gathered and ends the job with MPI_Abort instead of another collective.
class PointAbandoned : public Error {
 public:
  explicit PointAbandoned(int signal_number);
};

// Collective over all ranks of `context`. `burst` is the phase as this rank issues it, prepared on the
// transport (plan/rank_ops.hpp's burst_for_rank).
// Each timed trial: barrier, transport.begin_trial(), [hold_stream() with sweep.device_only], a host clock
// read, the begin timestamp, the burst, the end timestamp, a host clock read, [release_stream()],
// synchronize. The step is the transport's time between the two timestamps; launch is the host time between
// the two clock reads (enqueueing the burst); arrival the host time from the barrier's exit to the first
// clock read. Stops after sweep.iterations trials, or once the trials took sweep.time_budget_s (after
// min_iterations); the coordinator decides and all ranks follow, so every rank times the same trials. A
// signal seen at a trial boundary (on any rank) ends the point on every rank with samples.interrupted; one
// seen by the coordinator between two ops throws PointAbandoned there.
// Decode mode: the burst is launched op by op, each after its gap (Transport::launch_gap), with a timestamp
// after every gap and every op; the timed trials then give the per-op times, the measured gaps and the
// communication (step minus gaps), and there is no separate per-op pass. It never holds the stream.
PointSamples measure_point(Transport& transport, const PhasePlan& phase, BurstId burst, TimingMode mode,
                           const SweepSpec& sweep, const RankContext& context);

// One backend of an AllReduce point (--allreduce-backends): the transport that runs it and its prepared
// burst.
struct PointContender {
  Transport* transport = nullptr;
  BurstId burst = 0;
};

// The same point replayed by every contender, interleaved: each round of each pass (warm-up, timed, per-op)
// runs one trial of every contender in turn, each after its own barrier, and the stop decision follows the
// round, so that drift hits every backend alike; the time budget is the point's per contender. Then each
// contender's correctness pass. One PointSamples per contender, in their order; with one contender it is
// measure_point. The correctness pass of an AllReduce burst is Transport::verify_burst (every op, in the
// burst); of the other kinds ops_to_verify's.
std::vector<PointSamples> measure_contenders(const std::vector<PointContender>& contenders,
                                             const PhasePlan& phase, TimingMode mode, const SweepSpec& sweep,
                                             const RankContext& context);

// Which ops of a phase the correctness pass verifies: every op whose size differs (the AllReduces of one
// burst share one size, so one is enough); for All-to-Allv the first, middle and last layer's matrices.
std::vector<std::size_t> ops_to_verify(const PhasePlan& phase);

}  // namespace k25
