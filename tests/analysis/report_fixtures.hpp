// Crafted reports for the analysis unit tests: exact values, no timings.
#pragma once

#include <algorithm>
#include <string>

#include "analysis/run_report.hpp"

namespace k25::test {

// A distribution with the given p50 and p90 (others derived from them).
inline Stats stats_p50_p90(double p50, double p90) {
  Stats s;
  s.min = p50 * 0.9;
  s.p50 = p50;
  s.p90 = p90;
  s.p99 = p90 * 1.05;
  s.max = p90 * 1.1;
  s.mean = (p50 + p90) / 2;
  return s;
}

// A Kimi-shaped AllReduce result: 122 ops per step, 14,336 bytes per token per op.
inline PhaseResult allreduce_result(int tokens, TimingMode mode, double step_p50_us, double spread = 0.02) {
  PhaseResult r;
  r.phase = Phase::allreduce;
  r.tokens = tokens;
  r.requested_tokens = tokens;
  r.mode = mode;
  r.ranks = 8;
  r.ops_per_step = 122;
  r.bytes_per_op = static_cast<std::uint64_t>(tokens) * 14336;
  r.iterations = 50;
  r.step_us = stats_p50_p90(step_p50_us, step_p50_us * (1 + spread));
  r.op_us = stats_p50_p90(step_p50_us / 122, step_p50_us / 122 * (1 + spread));
  r.op_us_source = "per_op_pass";
  r.algbw_gbps = static_cast<double>(r.bytes_per_op) / (step_p50_us / 122) / 1e3;
  r.busbw_gbps = r.algbw_gbps * 2 * 7 / 8;
  r.checked = true;
  return r;
}

inline PhaseResult alltoall_result(Phase phase, int tokens, TimingMode mode, double step_p50_us,
                                   double spread = 0.02) {
  PhaseResult r = allreduce_result(tokens, mode, step_p50_us, spread);
  r.phase = phase;
  r.ops_per_step = 60;
  r.bytes_per_op = 0;
  r.bytes_per_rank_mean = tokens * 7408.0 * 7 / 8 * 8;
  r.bytes_per_rank_max = r.bytes_per_rank_mean * 1.2;
  r.op_us = stats_p50_p90(step_p50_us / 60, step_p50_us / 60 * (1 + spread));
  return r;
}

inline ServeLevel serve_level(int concurrency, double tpot_p50_ms, double output_tokens_per_s,
                              double spread = 0.03) {
  ServeLevel l;
  l.concurrency = concurrency;
  l.requests = 8;
  l.completed = 8;
  l.tpot_ms = stats_p50_p90(tpot_p50_ms, tpot_p50_ms * (1 + spread));
  l.ttft_ms = stats_p50_p90(40, 50);
  l.itl_ms = l.tpot_ms;
  l.e2el_ms = stats_p50_p90(800, 900);
  l.output_tokens_per_s = output_tokens_per_s;
  l.requests_per_s = output_tokens_per_s / 64;
  l.output_tokens = 512;
  return l;
}

// A level of serve_level's figures that a signal stopped after `finished` of `planned` requests.
inline ServeLevel interrupted_level(int concurrency, int finished, int planned) {
  ServeLevel l = serve_level(concurrency, 20.0, 100.0);
  l.requests = finished;
  l.completed = finished;
  l.interrupted = true;
  l.planned_requests = planned;
  return l;
}

// A complete report of model `model` on topology `kind` with no results yet.
inline RunReport empty_report(const std::string& model = "kimi-k2.5", const std::string& kind = "pcie") {
  RunReport r;
  r.tool.version = "0.1.0";
  r.tool.git_sha = "abc1234";
  r.run.started_at = "2025-01-01T00:00:00Z";
  r.run.finished_at = "2025-01-01T00:10:00Z";
  r.run.ranks = 8;
  r.run.hosts = {"node-a"};
  r.run.transport = kind == "host" ? "mpi" : "nccl";
  r.run.config = {{"model", {{"name", model}, {"hidden_size", 7168}}}};
  r.run.command_line = "mpirun -np 8 k25comm --sizes configs/kimi.yaml";
  r.topology.kind = kind;
  if (kind == "pcie") r.topology.link_limit_gbps = 63.0;
  return r;
}

// Whether one of the run's notes starts with `prefix`.
inline bool has_note_starting(const RunReport& r, const std::string& prefix) {
  return std::any_of(r.run.notes.begin(), r.run.notes.end(),
                     [&](const std::string& n) { return n.rfind(prefix, 0) == 0; });
}

}  // namespace k25::test
