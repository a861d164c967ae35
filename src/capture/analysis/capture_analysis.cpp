// Per-communicator analysis of Inspector records: sampling verdict, decode step, per-size and P2P statistics.
#include "capture/analysis/capture_analysis.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "capture/analysis/rank_join.hpp"
#include "capture/analysis/step_detection.hpp"
#include "common/collective_kind_names.hpp"

namespace k25 {
namespace {

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

std::optional<int> tokens_of(std::uint64_t bytes, const std::string& kind,
                             const std::optional<CaptureModel>& model) {
  if (!model || !names_kind(kind, CollectiveKind::allreduce)) return std::nullopt;
  const std::uint64_t per_token = model->bytes_per_token();
  if (per_token == 0 || bytes % per_token != 0 || bytes / per_token > static_cast<std::uint64_t>(INT_MAX))
    return std::nullopt;
  return static_cast<int>(bytes / per_token);
}

// Stats of the finite samples; absent when there are none (the Inspector writes "nan" bandwidths).
std::optional<Stats> finite_stats(std::vector<double> samples) {
  samples.erase(std::remove_if(samples.begin(), samples.end(), [](double x) { return !std::isfinite(x); }),
                samples.end());
  if (samples.empty()) return std::nullopt;
  return summarize(std::move(samples));
}

// "2, 5" or "0, 1, ... (1000 in all)".
std::string listed_ranks(const std::vector<int>& ranks, int count) {
  return static_cast<int>(ranks.size()) == count
             ? fmt::format("{}", fmt::join(ranks, ", "))
             : fmt::format("{}, ... ({} in all)", fmt::join(ranks, ", "), count);
}

std::string label(const CommunicatorOps& comm) {
  return comm.name.empty() || comm.name == "unknown" ? comm.id : fmt::format("{} ({})", comm.name, comm.id);
}

SamplingSummary sampling_of(const CommunicatorOps& comm) {
  SamplingSummary s;
  s.recorded_ops = comm.ops.size();
  s.coll_dropped_reported = comm.coll_dropped_reported;
  s.p2p_dropped_reported = comm.p2p_dropped_reported;
  std::uint64_t pairs = 0, kinds = 0;
  for (std::size_t i = 0; i < comm.ops.size();) {
    std::size_t j = i;
    while (j + 1 < comm.ops.size() && comm.ops[j + 1].kind == comm.ops[i].kind) {
      if (comm.ops[j + 1].sn == comm.ops[j].sn + 1) ++pairs;
      ++j;
    }
    ++kinds;
    s.expected_ops = saturating_add(s.expected_ops, saturating_add(comm.ops[j].sn - comm.ops[i].sn, 1));
    i = j + 1;
  }
  s.missing_ops = s.expected_ops - s.recorded_ops;
  s.coverage =
      s.expected_ops == 0 ? 1.0 : static_cast<double>(s.recorded_ops) / static_cast<double>(s.expected_ops);
  const std::uint64_t could_pair = s.recorded_ops - kinds;
  s.consecutive_fraction =
      could_pair == 0 ? 1.0 : static_cast<double>(pairs) / static_cast<double>(could_pair);
  if (s.missing_ops == 0) {
    s.verdict = "complete";
    s.explanation = "every sequence number between the first and the last of each kind was recorded";
  } else if (s.coll_dropped_reported > 0) {
    s.verdict = "drops";
    s.explanation = fmt::format(
        "the Inspector reported {} collective records dropped (its ring filled before the dump thread drained it: "
        "raise NCCL_INSPECTOR_DUMP_COLL_RING_SIZE or lower NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS); {} sequence numbers are missing and the steps holding them are left out",
        s.coll_dropped_reported, s.missing_ops);
  } else if (s.coverage < 0.5 && s.consecutive_fraction < 0.2) {
    s.verdict = "sampled";
    s.explanation = fmt::format(
        "only {} of {} ops were recorded ({:.1f} %), rarely two in a row: these records come from an Inspector that keeps only the latest collective per communicator between dumps (the copy shipped with NCCL 2.28.9, ext-profiler/inspector); per-size figures are samples and no step can be rebuilt from them. "
        "The current Inspector (plugins/profiler/inspector) keeps every op in a ring and counts what it drops",
        s.recorded_ops, s.expected_ops, 100.0 * s.coverage);
  } else {
    s.verdict = "gaps";
    s.explanation = fmt::format(
        "{} sequence numbers are missing without drop counts: a full ring in an Inspector without dump_stats, ops below NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES (default 8192), or ops without GPU timing (NCCL_INSPECTOR_REQUIRE_KERNEL_TIMING=1 leaves them out); the steps holding them are left out",
        s.missing_ops);
  }
  return s;
}

struct GroupSamples {
  std::vector<double> exec, busbw;
  std::map<int, std::uint64_t> slowest;
  std::uint64_t partial = 0;
};

// The order outputs list an op's phase in: decode, prefill, unknown, outside steps (TimelineRow::phase).
constexpr std::array<char, 4> kPhaseByOrder = {'d', 'p', 'u', '-'};
int phase_order(char phase) {
  return phase == 'd' ? 0 : phase == 'p' ? 1 : phase == 'u' ? 2 : 3;
}

// A step's phase as TimelineRow::phase: a trace's step without a phase is neither decode nor prefill.
char step_phase(const DetectedStep& step) {
  return step.prefill ? 'p' : step.phase_unknown ? 'u' : 'd';
}

// What the detection found, and the model's view of it: all a summary says where no step was found.
StepSummary step_facts(const StepDetection& d, const std::vector<std::string>& kinds,
                       const std::optional<CaptureModel>& model) {
  StepSummary s;
  s.found = d.found;
  s.method = d.method;
  s.reason = d.reason;
  if (d.anchor_kind) s.anchor = kinds[*d.anchor_kind];
  for (const PatternRun& run : d.pattern) s.pattern.emplace_back(kinds[run.kind], run.count);
  s.pattern_text = describe_pattern(d.pattern, kinds);
  s.ops_per_step = d.ops_per_step;
  s.incomplete_segments = d.incomplete_segments;
  s.other_segments = d.other_segments;
  s.other_shapes = d.other_shapes;
  s.ops_outside_steps = d.ops_outside_steps;
  s.prefill_above_bytes = d.prefill_above_bytes;
  s.prefill_rule = d.prefill_rule;
  if (model) {
    s.model_allreduces_per_step = model->allreduces_per_step;
    s.model_rule = model->allreduces_rule;
  }
  if (!d.found) return s;
  s.size_kind = kinds[d.dominant_kind];
  if (model && names_kind(s.size_kind, CollectiveKind::allreduce))
    s.bytes_per_token = model->bytes_per_token();
  if (model) {
    int allreduces = 0;
    for (const PatternRun& run : d.pattern)
      if (names_kind(kinds[run.kind], CollectiveKind::allreduce)) allreduces += run.count;
    s.matches_model = allreduces == model->allreduces_per_step;
  }
  return s;
}

// Each step's communication time: by phase, by (size, phase), and a decode step's by each kind of the
// pattern.
struct StepSamples {
  std::vector<double> decode_us, prefill_us;
  struct SizeSamples {
    std::vector<double> comm_us, size_kind_us;
    std::uint64_t partial = 0;
  };
  std::map<std::pair<std::uint64_t, int>, SizeSamples> by_size;
  std::vector<std::uint16_t> pattern_kinds;  // each kind of the pattern once, in its order
  std::vector<std::vector<double>> kind_us;  // per pattern kind, each decode step's time
  std::vector<double> kind_total;
  double decode_total = 0;
};

// The steps' samples; their counts (decode, prefill, partial, phase unknown) into `s`.
StepSamples step_samples(const CommunicatorOps& comm, const StepDetection& d, StepSummary& s) {
  StepSamples samples;
  for (const PatternRun& run : d.pattern)
    if (std::find(samples.pattern_kinds.begin(), samples.pattern_kinds.end(), run.kind) ==
        samples.pattern_kinds.end())
      samples.pattern_kinds.push_back(run.kind);
  samples.kind_us.resize(samples.pattern_kinds.size());
  samples.kind_total.assign(samples.pattern_kinds.size(), 0.0);
  for (const DetectedStep& step : d.steps) {
    const char phase = step_phase(step);
    (step.prefill ? s.prefill_steps : s.decode_steps) += 1;
    if (step.partial) ++s.partial_steps;
    if (step.phase_unknown) ++s.phase_unknown_steps;
    const auto us = static_cast<double>(step.comm_us);
    (step.prefill ? samples.prefill_us : samples.decode_us).push_back(us);
    StepSamples::SizeSamples& group = samples.by_size[{step.bytes, phase_order(phase)}];
    group.comm_us.push_back(us);
    double size_kind_us = 0;
    for (std::size_t i = step.first; i <= step.last; ++i) {
      const JoinedOp& op = comm.ops[comm.sequence[i]];
      if (op.kind == d.dominant_kind) size_kind_us += static_cast<double>(op.exec_us);
    }
    group.size_kind_us.push_back(size_kind_us);
    if (step.partial) ++group.partial;
    if (step.prefill) continue;
    samples.decode_total += us;
    std::vector<double> per_kind(samples.pattern_kinds.size(), 0.0);
    for (std::size_t i = step.first; i <= step.last; ++i) {
      const JoinedOp& op = comm.ops[comm.sequence[i]];
      const auto k = std::find(samples.pattern_kinds.begin(), samples.pattern_kinds.end(), op.kind) -
                     samples.pattern_kinds.begin();
      per_kind[static_cast<std::size_t>(k)] += static_cast<double>(op.exec_us);
    }
    for (std::size_t k = 0; k < samples.pattern_kinds.size(); ++k) {
      samples.kind_us[k].push_back(per_kind[k]);
      samples.kind_total[k] += per_kind[k];
    }
  }
  return samples;
}

// The steps per (size, phase), decode first.
void add_size_groups(StepSamples& samples, const StepDetection& d, const std::optional<CaptureModel>& model,
                     StepSummary& s) {
  int size_kind_ops = 0;
  for (const PatternRun& run : d.pattern)
    if (run.kind == d.dominant_kind) size_kind_ops += run.count;
  for (auto& [key, group] : samples.by_size) {
    StepSizeGroup g;
    g.bytes = key.first;
    g.tokens = tokens_of(g.bytes, s.size_kind, model);
    g.phase = op_phase_name(kPhaseByOrder[static_cast<std::size_t>(key.second)]);
    g.steps = group.comm_us.size();
    g.partial_steps = group.partial;
    g.comm_us = summarize(std::move(group.comm_us));
    g.size_kind_ops = size_kind_ops;
    g.size_kind_us = summarize(std::move(group.size_kind_us));
    s.by_size.push_back(std::move(g));
  }
  std::stable_sort(s.by_size.begin(), s.by_size.end(),
                   [](const StepSizeGroup& a, const StepSizeGroup& b) { return a.phase < b.phase; });
}

// A decode step's communication by kind of the pattern, and each kind's share of it.
void add_composition(const StepSamples& samples, const StepDetection& d,
                     const std::vector<std::string>& kinds, StepSummary& s) {
  if (s.decode_steps == 0) return;
  for (std::size_t k = 0; k < samples.pattern_kinds.size(); ++k) {
    KindShare share;
    share.kind = kinds[samples.pattern_kinds[k]];
    for (const PatternRun& run : d.pattern)
      if (run.kind == samples.pattern_kinds[k]) share.ops_per_step += run.count;
    share.us_per_step = summarize(samples.kind_us[k]);
    share.share = samples.decode_total > 0 ? samples.kind_total[k] / samples.decode_total : 0.0;
    s.composition.push_back(std::move(share));
  }
}

StepSummary summarize_steps(const CommunicatorOps& comm, const StepDetection& d,
                            const std::vector<std::string>& kinds, const std::optional<CaptureModel>& model) {
  StepSummary s = step_facts(d, kinds, model);
  if (!d.found) return s;
  StepSamples samples = step_samples(comm, d, s);
  if (!samples.decode_us.empty()) s.decode_comm_us = summarize(samples.decode_us);
  if (!samples.prefill_us.empty()) s.prefill_comm_us = summarize(samples.prefill_us);
  add_size_groups(samples, d, model, s);
  add_composition(samples, d, kinds, s);
  return s;
}

std::vector<P2pGroup> p2p_groups(const CommunicatorOps& comm, const InspectorCapture& capture) {
  struct Samples {
    std::vector<double> bytes, exec, busbw;
    std::set<int> ranks, peers;
    std::uint64_t total = 0;
  };
  std::map<std::uint16_t, Samples> by_kind;
  for (std::uint32_t index : comm.p2p) {
    const OpRecord& op = capture.ops[index];
    Samples& s = by_kind[op.kind];
    s.bytes.push_back(static_cast<double>(op.bytes));
    s.exec.push_back(static_cast<double>(op.exec_us));
    s.busbw.push_back(op.busbw_gbps);
    s.ranks.insert(capture.streams[op.stream].rank);
    s.peers.insert(op.peer);
    s.total = saturating_add(s.total, op.bytes);
  }
  std::vector<P2pGroup> groups;
  for (auto& [kind, s] : by_kind) {
    P2pGroup g;
    g.kind = capture.kinds[kind];
    g.records = s.exec.size();
    g.total_bytes = s.total;
    g.bytes = summarize(std::move(s.bytes));
    g.exec_us = summarize(std::move(s.exec));
    g.busbw_gbps = finite_stats(std::move(s.busbw));
    g.ranks = static_cast<int>(s.ranks.size());
    g.peers = static_cast<int>(s.peers.size());
    groups.push_back(std::move(g));
  }
  return groups;
}

}  // namespace

CaptureModel capture_model(const ModelSpec& model) {
  CaptureModel c;
  c.name = model.name;
  c.hidden_size = model.hidden_size;
  c.activation_bytes = static_cast<int>(dtype_bytes(model.activation_dtype));
  c.allreduces_per_step = model.num_layers * model.allreduces_per_layer + (model.embedding_allreduce ? 1 : 0);
  c.allreduces_rule = fmt::format("{} layers x {} AllReduces{}", model.num_layers, model.allreduces_per_layer,
                                  model.embedding_allreduce ? " + 1 (embedding_allreduce)" : "");
  return c;
}

namespace {

// The communicator's facts as the join found them.
CommunicatorResult communicator_facts(const CommunicatorOps& comm) {
  CommunicatorResult c;
  c.id = comm.id;
  c.name = comm.name;
  c.n_ranks = comm.n_ranks;
  c.nnodes = comm.nnodes;
  c.ranks = comm.ranks;
  c.missing_rank_count = comm.missing_rank_count;
  c.missing_ranks = comm.missing_ranks;
  c.rank_host = comm.rank_host;
  c.conflicts = comm.conflicts;
  c.format_versions.assign(comm.format_versions.begin(), comm.format_versions.end());
  c.timing_sources = comm.timing_sources;
  c.coll_records = comm.coll_records;
  c.p2p_records = comm.p2p_records;
  c.duplicate_records = comm.duplicate_records;
  c.dump_markers = comm.dump_markers;
  c.joined_ops = comm.ops.size();
  for (const JoinedOp& op : comm.ops) {
    if (op.ranks_present < comm.n_ranks) ++c.partial_ops;
    if (op.size_mismatch) ++c.size_mismatches;
  }
  c.ops_not_in_sequence = comm.ops.size() - comm.sequence.size();
  c.reference_rank = comm.reference_rank;
  c.sequence_order = comm.sequence_by_timestamp ? "verbose_timestamps" : "file_order";
  c.sampling = sampling_of(comm);
  return c;
}

// The communicator's steps: none from sampled records; a trace's own where its steps are given.
StepDetection communicator_steps(const CommunicatorOps& comm, const CommunicatorResult& c,
                                 const StepHints& hints, const CaptureSettings& settings,
                                 const std::vector<std::string>& kinds) {
  StepDetection detection;
  if (c.sampling.verdict == "sampled") {
    detection.reason = "the records are sampled (one op per communicator per dump): no step can be rebuilt";
    detection.ops_outside_steps = comm.sequence.size();
  } else if (comm.coll_records > 0) {
    StepHints comm_hints = hints;
    if (const auto given = settings.given_step_methods.find(comm.id);
        given != settings.given_step_methods.end())
      comm_hints.given_method = given->second;
    detection = detect_steps(comm, kinds, comm_hints);
  } else {
    detection.reason = "no collective records";
  }
  return detection;
}

using SizeKey = std::tuple<std::uint16_t, std::uint64_t, int, std::uint8_t, std::uint8_t>;

// Phase and step of each sequence position into the timeline; every op into its (kind, bytes, phase, launch,
// size source) group (ops outside the sequence as outside_steps).
std::vector<TimelineRow> timeline_and_groups(const CommunicatorOps& comm, const StepDetection& detection,
                                             std::map<SizeKey, GroupSamples>& groups) {
  const std::size_t n = comm.sequence.size();
  std::vector<char> phase(n, '-');
  std::vector<std::int64_t> step_of(n, -1);
  for (std::size_t s = 0; s < detection.steps.size(); ++s) {
    const DetectedStep& step = detection.steps[s];
    for (std::size_t i = step.first; i <= step.last; ++i) {
      phase[i] = step_phase(step);
      step_of[i] = static_cast<std::int64_t>(s);
    }
  }
  const auto add = [&](const JoinedOp& op, char op_phase) {
    GroupSamples& g = groups[{op.kind, op.bytes, phase_order(op_phase), op.launch, op.bytes_source}];
    g.exec.push_back(static_cast<double>(op.exec_us));
    g.busbw.push_back(op.busbw_gbps);
    ++g.slowest[op.slowest_rank];
    if (op.ranks_present < comm.n_ranks) ++g.partial;
  };
  std::vector<bool> in_sequence(comm.ops.size(), false);
  std::vector<TimelineRow> timeline;
  timeline.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const JoinedOp& op = comm.ops[comm.sequence[i]];
    in_sequence[comm.sequence[i]] = true;
    add(op, phase[i]);
    timeline.push_back({i, op.kind, op.sn, op.bytes, op.exec_us, op.start_ts, op.slowest_rank,
                        op.ranks_present, step_of[i], phase[i]});
  }
  for (std::size_t i = 0; i < comm.ops.size(); ++i)
    if (!in_sequence[i]) add(comm.ops[i], '-');
  return timeline;
}

SizeGroup size_group(const SizeKey& key, GroupSamples& g, const std::vector<std::string>& kinds,
                     const std::optional<CaptureModel>& model) {
  SizeGroup group;
  group.kind = kinds[std::get<0>(key)];
  group.bytes = std::get<1>(key);
  group.tokens = tokens_of(group.bytes, group.kind, model);
  const int order = std::get<2>(key);
  group.phase = op_phase_name(kPhaseByOrder[static_cast<std::size_t>(order)]);
  group.mode = launch_mode_name(std::get<3>(key));
  group.bytes_source = bytes_source_name(std::get<4>(key));
  group.count = g.exec.size();
  group.exec_us = summarize(std::move(g.exec));
  group.busbw_gbps = finite_stats(std::move(g.busbw));
  group.partial = g.partial;
  const auto slowest = std::max_element(g.slowest.begin(), g.slowest.end(),
                                        [](const auto& a, const auto& b) { return a.second < b.second; });
  group.slowest_rank = slowest->first;
  group.slowest_rank_share = static_cast<double>(slowest->second) / static_cast<double>(group.count);
  return group;
}

// What the reader of one communicator's figures must know: missing ranks, conflicts, size mismatches,
// duplicates, CPU-timed records, incomplete records, a step that differs from the model's.
void communicator_notes(const CommunicatorOps& comm, const CommunicatorResult& c,
                        const CaptureSettings& settings, std::vector<std::string>& notes) {
  const std::string who = label(comm);
  if (!comm.missing_ranks.empty())
    notes.push_back(fmt::format(
        "communicator {}: rank(s) {} of {} have no records: each op's time is the max over the ranks present, which may miss the slowest",
        who, listed_ranks(comm.missing_ranks, comm.missing_rank_count), comm.n_ranks));
  for (const std::string& conflict : comm.conflicts)
    notes.push_back(fmt::format("communicator {}: {}", who, conflict));
  if (c.size_mismatches > 0)
    notes.push_back(fmt::format("communicator {}: {} ops have different sizes on different ranks", who,
                                c.size_mismatches));
  if (c.duplicate_records > 0)
    notes.push_back(
        fmt::format("communicator {}: {} duplicate records (same rank, kind and sequence number) ignored",
                    who, c.duplicate_records));
  std::uint64_t cpu_timed = 0;
  for (const auto& [source, count] : comm.timing_sources)
    if (source != "kernel_gpu") cpu_timed += count;
  if (cpu_timed > 0)
    notes.push_back(fmt::format(
        "communicator {}: {} records are not timed by the GPU (coll_timing_source other than kernel_gpu)",
        who, cpu_timed));
  if (c.sampling.verdict != "complete")
    notes.push_back(fmt::format("communicator {}: {}: {}", who, c.sampling.verdict, c.sampling.explanation));
  if (c.step.matches_model && !*c.step.matches_model) {
    int allreduces = 0;
    for (const auto& [kind, count] : c.step.pattern)
      if (names_kind(kind, CollectiveKind::allreduce)) allreduces += count;
    notes.push_back(
        fmt::format("communicator {}: the captured step holds {} AllReduces; the model config gives {} ({})",
                    who, allreduces, settings.model->allreduces_per_step, settings.model->allreduces_rule));
  }
}

}  // namespace

CaptureResult analyze_capture(const InspectorCapture& capture, const CaptureSettings& settings) {
  CaptureResult r;
  r.inputs = capture.files;
  r.model = settings.model;
  r.prefill_factor = settings.prefill_factor;
  r.prefill_tokens = settings.prefill_tokens;
  r.kinds = capture.kinds;
  r.notes = capture.notes;
  for (const InputFile& file : capture.files)  // a trace's cut is among the trace's notes
    if (file.cut && file.format == InputFormat::inspector)
      r.notes.push_back(fmt::format("{}: {}", file.path, file.cut_reason));
  const StepHints hints = step_hints(settings.model, settings.prefill_factor, settings.prefill_tokens);
  for (const CommunicatorOps& comm : join_ranks(capture)) {
    CommunicatorResult c = communicator_facts(comm);
    const StepDetection detection = communicator_steps(comm, c, hints, settings, capture.kinds);
    c.step = summarize_steps(comm, detection, capture.kinds, settings.model);
    std::map<SizeKey, GroupSamples> groups;
    std::vector<TimelineRow> timeline = timeline_and_groups(comm, detection, groups);
    for (auto& [key, g] : groups) c.by_size.push_back(size_group(key, g, capture.kinds, settings.model));
    c.p2p = p2p_groups(comm, capture);
    communicator_notes(comm, c, settings, r.notes);
    r.communicators.push_back(std::move(c));
    r.timelines.push_back(std::move(timeline));
  }
  return r;
}

}  // namespace k25
