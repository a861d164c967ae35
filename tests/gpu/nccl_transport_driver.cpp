// GPU test driver of the nccl transport without the k25comm front end: eager and graph bursts of the Kimi
// plan and of the vLLM TP8 sequence beside it (AllGather, ReduceScatter), the per-op pass, the correctness
// pass (in and out of place, with and without MoE permute), and the bounded wait on an injected hang. Run
// with one rank per GPU (directly: one rank). Skips (exit 77) without a CUDA device.
//   nccl_transport_driver CONFIG.yaml run    all checks, prints per-op figures
//   nccl_transport_driver CONFIG.yaml hang   an injected hang must end in RuntimeFault within the timeout
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "common/bounded_wait.hpp"
#include "common/error.hpp"
#include "common/rank_context.hpp"
#include "config/config_loader.hpp"
#include "gpu_skip.hpp"
#include "plan/decode_step_plan.hpp"
#include "plan/hang_spec.hpp"
#include "plan/rank_ops.hpp"
#include "transport/make_transport.hpp"
#include "transport/nccl/built_nccl_backend.hpp"

namespace {

int failures = 0;
constexpr double kHangTimeoutS = 3.0;

void expect(const k25::RankContext& context, bool ok, const std::string& what) {
  if (!ok) {
    ++failures;
    std::printf("FAILED (rank %d): %s\n", context.rank(), what.c_str());
  }
}

// Every phase of `plans` as this rank issues it, in plan order.
std::vector<k25::OpBurst> bursts_of(const std::vector<k25::DecodeStepPlan>& plans,
                                    const k25::RunConfig& config, int rank) {
  const k25::RankOpOptions options{config.sweep.include_permute,
                                   k25::parse_hang_spec(config.transport.inject_hang)};
  std::vector<k25::OpBurst> bursts;
  for (const auto& plan : plans)
    for (const auto& phase : plan.phases) bursts.push_back(k25::burst_for_rank(phase, rank, options));
  return bursts;
}

// The nccl transport on the device k25comm would choose for this rank.
std::unique_ptr<k25::Transport> make_transport(const k25::RankContext& context,
                                               const k25::RunConfig& config) {
  const k25::NcclBackend& nccl = k25::nccl::nccl_backend();
  const k25::DevicePlacement placement = nccl.choose_device(context, config.transport.emulate_ranks);
  if (!placement.problem.empty()) throw k25::UsageError(placement.problem);
  return nccl.make(k25::transport_options(config), context, placement.device);
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0.0 : s / static_cast<double>(v.size());
}

// One configuration of the transport over every token count and phase of the config.
void run_checks(const k25::RankContext& context, const k25::RunConfig& config, const std::string& label) {
  std::vector<k25::DecodeStepPlan> plans;
  for (int tokens : config.sweep.tokens)
    plans.push_back(
        k25::plan_decode_step(config.model, config.routing, config.sweep, tokens, context.size()));
  auto transport = make_transport(context, config);
  expect(context, transport->supports_graph(), "the nccl transport supports graph mode");
  const std::vector<k25::OpBurst> bursts = bursts_of(plans, config, context.rank());
  transport->allocate(k25::largest_buffers(bursts, context.size()));
  std::size_t next_burst = 0;
  for (const auto& plan : plans)
    for (const auto& phase : plan.phases) {
      const k25::BurstId burst = transport->prepare(bursts[next_burst++]);
      const std::size_t ops = phase.ops.size();
      // eager trials
      std::vector<double> eager_step;
      for (int trial = 0; trial < 20; ++trial) {
        MPI_Barrier(context.world());
        transport->reset_marks();
        const int begin = transport->mark();
        for (std::size_t i = 0; i < ops; ++i) transport->launch(burst, i);
        const int end = transport->mark();
        transport->synchronize();
        if (trial >= 5) eager_step.push_back(transport->elapsed_us(begin, end));
      }
      // per-op pass
      std::vector<double> per_op;
      for (int trial = 0; trial < 5; ++trial) {
        MPI_Barrier(context.world());
        transport->reset_marks();
        std::vector<int> slots{transport->mark()};
        for (std::size_t i = 0; i < ops; ++i) {
          transport->launch(burst, i);
          slots.push_back(transport->mark());
        }
        transport->synchronize();
        for (std::size_t i = 0; i < ops; ++i) per_op.push_back(transport->elapsed_us(slots[i], slots[i + 1]));
      }
      // graph
      auto graph = transport->capture(burst);
      std::vector<double> graph_step;
      for (int trial = 0; trial < 20; ++trial) {
        MPI_Barrier(context.world());
        transport->reset_marks();
        const int begin = transport->mark();
        transport->replay(*graph);
        const int end = transport->mark();
        transport->synchronize();
        if (trial >= 5) graph_step.push_back(transport->elapsed_us(begin, end));
      }
      graph.reset();
      // correctness: first, middle and last op
      std::uint64_t wrong = 0;
      for (std::size_t i : {std::size_t{0}, ops / 2, ops - 1}) wrong += transport->verify(burst, i);
      expect(context, wrong == 0,
             label + " " + k25::to_string(phase.phase) + " at " + std::to_string(phase.tokens) +
                 " tokens: " + std::to_string(wrong) + " wrong");
      expect(context, mean(eager_step) > 0 && mean(graph_step) > 0, "timings are positive");
      const std::size_t bytes = ops ? phase.ops[0].bytes : 0;
      if (context.is_coordinator())
        std::printf(
            "%-28s %-9s tokens %4d ops %4zu op0 %9zu B | eager %8.2f us/op (per-op pass %8.2f) | graph %8.2f us/op | wrong %llu\n",
            label.c_str(), k25::to_string(phase.phase), phase.tokens, ops, bytes,
            mean(eager_step) / static_cast<double>(ops), mean(per_op),
            mean(graph_step) / static_cast<double>(ops), static_cast<unsigned long long>(wrong));
    }
  if (context.is_coordinator()) std::printf("caveat: %s\n", transport->caveat(context.size()).c_str());
}

int run(const k25::RankContext& context, k25::RunConfig config, const std::string& config_path) {
  config.sweep.tokens = {1, 8, 128};
  run_checks(context, config, "out-of-place");
  config.sweep.in_place = true;
  config.sweep.tokens = {8};
  run_checks(context, config, "in-place");
  config.sweep.in_place = false;
  config.sweep.include_permute = true;
  config.sweep.tokens = {1, 64};
  run_checks(context, config, "with permute");
  // AllGather and ReduceScatter (the vLLM TP8 sequence beside CONFIG), in place and out of place.
  const std::filesystem::path sequence =
      std::filesystem::path(config_path).parent_path() / "kimi-vllm-tp8.yaml";
  if (std::filesystem::exists(sequence)) {
    k25::RunConfig kinds = k25::load_config(sequence.string());
    kinds.sweep.tokens = {1, 8};
    run_checks(context, kinds, "sequence out-of-place");
    kinds.sweep.in_place = true;
    run_checks(context, kinds, "sequence in-place");
  } else {
    expect(context, false, "no " + sequence.string() + " beside the config");
  }
  return failures == 0 ? 0 : 1;
}

// The bounded wait: op 5 of the AllReduce burst at 8 tokens waits forever; synchronize() must throw
// RuntimeFault naming the rank, op and token count within the 3 s timeout (plus the abort's grace), having
// aborted the communicator on the watchdog's action thread.
int hang(const k25::RankContext& context, k25::RunConfig config) {
  config.sweep.tokens = {8};
  config.sweep.run_alltoall = false;
  config.transport.inject_hang = "allreduce:8:5";
  const auto plan = k25::plan_decode_step(config.model, config.routing, config.sweep, 8, context.size());
  auto transport = make_transport(context, config);
  const std::vector<k25::OpBurst> bursts = bursts_of({plan}, config, context.rank());
  transport->allocate(k25::largest_buffers(bursts, context.size()));
  const auto& phase = plan.phases.at(0);
  const k25::BurstId burst = transport->prepare(bursts.at(0));
  const auto start = std::chrono::steady_clock::now();
  try {
    transport->reset_marks();
    std::vector<int> slots{transport->mark()};
    for (std::size_t i = 0; i < phase.ops.size(); ++i) {
      transport->launch(burst, i);
      slots.push_back(transport->mark());
    }
    transport->synchronize();
    expect(context, false, "the injected hang did not stop synchronize()");
  } catch (const k25::RuntimeFault& fault) {
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string what = fault.what();
    std::printf("watchdog fired after %.2f s: %s\n", waited, what.c_str());
    expect(context, waited >= kHangTimeoutS && waited < kHangTimeoutS + k25::kWatchdogGraceS,
           "the fault is raised after the 3 s timeout, within the abort's grace more");
    expect(context, what.find("rank " + std::to_string(context.rank())) != std::string::npos,
           "the message names the rank");
    expect(context, what.find("op 5 of") != std::string::npos, "the message names the op");
    expect(context, what.find("at 8 tokens") != std::string::npos, "the message names the token count");
    expect(context, fault.code() == k25::ExitCode::runtime_fault, "exit code 3");
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  k25::gpu_test::skip_without_device("nccl transport driver");
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s CONFIG.yaml run|hang\n", argv[0]);
    return 2;
  }
  MPI_Init(&argc, &argv);
  int rc = 1;
  try {
    k25::RunConfig config = k25::load_config(argv[1]);
    const bool hang_check = std::string(argv[2]) == "hang";
    if (hang_check) config.transport.timeout_s = kHangTimeoutS;  // the watchdog takes it from the context
    const k25::RankContext context(config.transport.timeout_s);
    rc = hang_check ? hang(context, config) : run(context, config, argv[1]);
    std::printf("%s (rank %d)\n", rc == 0 ? "PASSED" : "FAILED", context.rank());
  } catch (const std::exception& e) {
    std::printf("FAILED with exception: %s\n", e.what());
    rc = 1;
  }
  std::fflush(stdout);
  if (rc != 0) MPI_Abort(MPI_COMM_WORLD, rc);  // peers may wait in a collective
  MPI_Finalize();
  return rc;
}
