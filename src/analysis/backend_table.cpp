// Per token count, every AllReduce backend's burst against the default, the best, the crossover, the
// headline sentences and the TPOT effect.
#include "analysis/backend_table.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "common/count_noun.hpp"

namespace k25 {
namespace {

// Three significant digits ("6.81 ms", "0.142 ms"), whole ms from 100 up: the headline's style.
std::string burst_ms(double us) {
  const double value = us / 1000.0;
  return value >= 100 ? fmt::format("{:.0f} ms", value) : fmt::format("{:#.3g} ms", value);
}

std::string bytes_text(std::uint64_t bytes) {
  return fmt::format("{} B", bytes);
}

bool allreduce_row(const PhaseResult& r) {
  return r.phase == Phase::allreduce && r.kind() == CollectiveKind::allreduce;
}

// The rows of every backend of the AllReduce burst, the default's first, by (backend, tokens, mode).
struct RowIndex {
  std::vector<std::string> backends;  // in order: the default, then as they first appear
  std::map<std::tuple<std::string, int, TimingMode>, const PhaseResult*> rows;
  std::set<int> tokens;
};

RowIndex index_rows(const std::vector<PhaseResult>& results, const std::vector<PhaseResult>& alternatives,
                    const std::string& default_backend) {
  RowIndex index;
  const auto add = [&](const PhaseResult& r, const std::string& backend) {
    if (!allreduce_row(r)) return;
    if (std::find(index.backends.begin(), index.backends.end(), backend) == index.backends.end())
      index.backends.push_back(backend);
    index.rows.emplace(std::make_tuple(backend, r.requested_tokens, r.mode), &r);
    index.tokens.insert(r.requested_tokens);
  };
  for (const PhaseResult& r : results) add(r, default_backend);
  for (const PhaseResult& r : alternatives) add(r, r.backend);
  return index;
}

const PhaseResult* find_row(const RowIndex& index, const std::string& backend, int tokens, TimingMode mode) {
  const auto it = index.rows.find({backend, tokens, mode});
  return it == index.rows.end() ? nullptr : it->second;
}

// Graph where any backend measured it at these tokens (as vLLM's decode replays graphs), else eager, else
// decode.
TimingMode table_mode(const RowIndex& index, int tokens) {
  for (const TimingMode mode : {TimingMode::graph, TimingMode::eager, TimingMode::decode})
    for (const std::string& backend : index.backends)
      if (const PhaseResult* r = find_row(index, backend, tokens, mode); r && r->ran()) return mode;
  return TimingMode::eager;
}

AllreduceBackendRow make_row(const RowIndex& index, const std::string& backend, int tokens, TimingMode mode,
                             bool is_default) {
  AllreduceBackendRow row;
  row.backend = backend;
  row.is_default = is_default;
  if (const PhaseResult* r = find_row(index, backend, tokens, mode)) {
    row.not_run = r->not_run;
    row.wrong = r->wrong;
    row.checked = r->checked;
    if (r->ran() && r->iterations > 0) {
      row.op_p50_us = r->op_us.p50;
      row.op_p90_us = r->op_us.p90;
      row.step_p50_us = mode == TimingMode::decode && r->decode ? r->decode->comm_us.p50 : r->step_us.p50;
    }
  } else {
    row.not_run = fmt::format("not measured in {} mode", to_string(mode));
  }
  if (const PhaseResult* d = find_row(index, backend, tokens, TimingMode::decode);
      d && d->ran() && d->decode) {
    row.decode_step_p50_us = d->step_us.p50;
    row.decode_comm_p50_us = d->decode->comm_us.p50;
    row.wrong += mode == TimingMode::decode ? 0 : d->wrong;
  }
  return row;
}

AllreduceBackendTable make_table(const RowIndex& index, int tokens, const std::string& default_backend) {
  AllreduceBackendTable table;
  table.tokens = tokens;
  table.mode = table_mode(index, tokens);
  for (const std::string& backend : index.backends) {
    const PhaseResult* any = find_row(index, backend, tokens, table.mode);
    if (any != nullptr && table.bytes_per_op == 0) {
      table.bytes_per_op = any->bytes_per_op;
      table.ops_per_step = any->ops_per_step;
    }
    table.rows.push_back(make_row(index, backend, tokens, table.mode, backend == default_backend));
  }
  const AllreduceBackendRow* reference = nullptr;
  for (const AllreduceBackendRow& row : table.rows)
    if (row.is_default && row.usable()) reference = &row;
  const AllreduceBackendRow* best = nullptr;
  for (AllreduceBackendRow& row : table.rows) {
    if (reference != nullptr && row.step_p50_us && *reference->step_p50_us > 0)
      row.ratio = *row.step_p50_us / *reference->step_p50_us;
    if (row.usable() && (best == nullptr || *row.step_p50_us < *best->step_p50_us)) best = &row;
  }
  if (best != nullptr) {
    for (AllreduceBackendRow& row : table.rows) row.best = &row == best;
    table.best = best->backend;
  }
  return table;
}

const AllreduceBackendRow* row_of(const AllreduceBackendTable& table, const std::string& backend) {
  for (const AllreduceBackendRow& row : table.rows)
    if (row.backend == backend) return &row;
  return nullptr;
}

BackendCrossover find_crossover(const std::vector<AllreduceBackendTable>& tables) {
  BackendCrossover crossover;
  const std::string one = to_string(AllreduceBackend::oneshot), two = to_string(AllreduceBackend::twoshot);
  std::vector<std::pair<std::uint64_t, bool>> compared;  // bytes per op, two-shot faster
  for (const AllreduceBackendTable& table : tables) {
    const AllreduceBackendRow* a = row_of(table, one);
    const AllreduceBackendRow* b = row_of(table, two);
    if (a && b && a->usable() && b->usable() && a->op_p50_us && b->op_p50_us)
      compared.emplace_back(table.bytes_per_op, *b->op_p50_us < *a->op_p50_us);
  }
  if (compared.empty()) return crossover;
  std::sort(compared.begin(), compared.end());
  for (std::size_t i = 0; i < compared.size(); ++i) {
    if (!compared[i].second) {
      crossover.oneshot_up_to_bytes = compared[i].first;
      continue;
    }
    if (crossover.oneshot_up_to_bytes) {
      crossover.twoshot_from_bytes = compared[i].first;
      break;
    }
    if (i == 0) crossover.twoshot_from_bytes = compared[i].first;
  }
  if (crossover.oneshot_up_to_bytes && crossover.twoshot_from_bytes)
    crossover.text =
        fmt::format("one-shot/two-shot crossover between {} (one-shot faster) and {} per op",
                    bytes_text(*crossover.oneshot_up_to_bytes), bytes_text(*crossover.twoshot_from_bytes));
  else if (crossover.twoshot_from_bytes)
    crossover.text = fmt::format("two-shot faster than one-shot at every size measured (from {} per op)",
                                 bytes_text(*crossover.twoshot_from_bytes));
  else
    crossover.text = fmt::format("one-shot faster than two-shot at every size measured (up to {} per op)",
                                 bytes_text(compared.back().first));
  return crossover;
}

// "oneshot 1.42 ms (0.21x)", "twoshot WRONG (12 wrong elements)", "oneshot-pull not run: ..."
std::string row_words(const AllreduceBackendRow& row) {
  if (!row.not_run.empty()) return fmt::format("{} not run ({})", row.backend, row.not_run);
  if (row.wrong > 0) return fmt::format("{} WRONG ({} wrong elements)", row.backend, row.wrong);
  if (!row.step_p50_us) return row.backend + " -";
  std::string words = fmt::format("{} {}", row.backend, burst_ms(*row.step_p50_us));
  if (row.ratio && !row.is_default) words += fmt::format(" ({:.2f}x)", *row.ratio);
  return words;
}

std::string table_sentence(const AllreduceBackendTable& table) {
  std::string sentence = fmt::format("AllReduce burst at T={}:", table.tokens);
  for (std::size_t i = 0; i < table.rows.size(); ++i)
    sentence += (i == 0 ? " " : ", ") + row_words(table.rows[i]);
  sentence += fmt::format(" ({}, {} ops of {})", to_string(table.mode), table.ops_per_step,
                          bytes_text(table.bytes_per_op));
  sentence += table.best.empty() ? "; no backend ran exactly" : "; best " + table.best;
  return sentence;
}

// "best per token count: oneshot at T=1, 4, twoshot at T=16, 64"
std::string best_per_count(const std::vector<AllreduceBackendTable>& tables) {
  std::vector<std::pair<std::string, std::string>> runs;  // backend, its token counts
  for (const AllreduceBackendTable& table : tables) {
    const std::string best = table.best.empty() ? "none exact" : table.best;
    if (!runs.empty() && runs.back().first == best)
      runs.back().second += fmt::format(", {}", table.tokens);
    else
      runs.emplace_back(best, std::to_string(table.tokens));
  }
  std::string text = "best per token count:";
  for (std::size_t i = 0; i < runs.size(); ++i)
    text += fmt::format("{} {} at T={}", i == 0 ? "" : ",", runs[i].first, runs[i].second);
  return text;
}

std::vector<BackendTpotEffect> tpot_effects(const std::vector<AllreduceBackendTable>& tables,
                                            const std::vector<AttributionRow>& attribution) {
  std::vector<BackendTpotEffect> effects;
  for (const AttributionRow& row : attribution) {
    const CommShare* share = graph_else_eager_share(row, "allreduce");
    if (share == nullptr || share->source != EstimateSource::measured) continue;
    for (const AllreduceBackendTable& table : tables) {
      if (table.tokens != row.tokens || table.mode != share->key.mode || table.best.empty()) continue;
      const AllreduceBackendRow* best = row_of(table, table.best);
      if (best == nullptr || best->is_default) continue;
      BackendTpotEffect effect;
      effect.concurrency = row.concurrency;
      effect.tokens = row.tokens;
      effect.backend = table.best;
      effect.mode = table.mode;
      effect.tpot_ms = row.tpot_ms;
      effect.default_burst_ms = share->comm_ms;
      effect.best_burst_ms = *best->step_p50_us / 1000.0;
      effect.new_tpot_ms = row.tpot_ms - effect.default_burst_ms + effect.best_burst_ms;
      effects.push_back(effect);
    }
  }
  return effects;
}

std::string tpot_sentence(const BackendTpotEffect& e) {
  return fmt::format(
      "with {} (best at T={}), TPOT at C={} {:.2f} -> {:.2f} ms ({:+.0f} %): its {} burst {} against {} [measured in replay: the burst's difference taken out of the attribution, TPOT not re-measured]",
      e.backend, e.tokens, e.concurrency, e.tpot_ms, e.new_tpot_ms,
      e.tpot_ms > 0 ? (e.new_tpot_ms / e.tpot_ms - 1.0) * 100.0 : 0.0, to_string(e.mode),
      burst_ms(e.best_burst_ms * 1000.0), burst_ms(e.default_burst_ms * 1000.0));
}

nlohmann::json optional_number(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace

BackendAnalysis analyze_backends(const std::vector<PhaseResult>& results,
                                 const std::vector<PhaseResult>& alternatives,
                                 const std::string& default_backend,
                                 const std::vector<AttributionRow>& attribution) {
  BackendAnalysis analysis;
  analysis.default_backend = default_backend;
  if (std::none_of(alternatives.begin(), alternatives.end(), allreduce_row)) return analysis;
  const RowIndex index = index_rows(results, alternatives, default_backend);
  for (const int tokens : index.tokens) analysis.tables.push_back(make_table(index, tokens, default_backend));
  analysis.crossover = find_crossover(analysis.tables);
  analysis.tpot = tpot_effects(analysis.tables, attribution);
  std::string first = table_sentence(analysis.tables.front());
  if (analysis.tables.size() > 1) first += "; " + best_per_count(analysis.tables);
  if (!analysis.crossover.text.empty()) first += "; " + analysis.crossover.text;
  analysis.headline.push_back(first);
  for (const BackendTpotEffect& effect : analysis.tpot) analysis.headline.push_back(tpot_sentence(effect));
  return analysis;
}

void to_json(nlohmann::json& j, const BackendAnalysis& analysis) {
  nlohmann::json tables = nlohmann::json::array();
  for (const AllreduceBackendTable& table : analysis.tables) {
    nlohmann::json rows = nlohmann::json::array();
    for (const AllreduceBackendRow& row : table.rows)
      rows.push_back({{"backend", row.backend},
                      {"default", row.is_default},
                      {"op_p50_us", optional_number(row.op_p50_us)},
                      {"op_p90_us", optional_number(row.op_p90_us)},
                      {"step_p50_us", optional_number(row.step_p50_us)},
                      {"decode_step_p50_us", optional_number(row.decode_step_p50_us)},
                      {"decode_comm_p50_us", optional_number(row.decode_comm_p50_us)},
                      {"ratio", optional_number(row.ratio)},
                      {"wrong", row.wrong},
                      {"checked", row.checked},
                      {"not_run", row.not_run},
                      {"best", row.best}});
    tables.push_back({{"tokens", table.tokens},
                      {"mode", to_string(table.mode)},
                      {"bytes_per_op", table.bytes_per_op},
                      {"ops_per_step", table.ops_per_step},
                      {"best", table.best},
                      {"rows", rows}});
  }
  nlohmann::json tpot = nlohmann::json::array();
  for (const BackendTpotEffect& e : analysis.tpot)
    tpot.push_back({{"concurrency", e.concurrency},
                    {"tokens", e.tokens},
                    {"backend", e.backend},
                    {"mode", to_string(e.mode)},
                    {"tpot_ms", e.tpot_ms},
                    {"default_burst_ms", e.default_burst_ms},
                    {"best_burst_ms", e.best_burst_ms},
                    {"new_tpot_ms", e.new_tpot_ms},
                    {"source", "measured in replay"}});
  j = {{"default", analysis.default_backend},
       {"tables", tables},
       {"crossover",
        {{"oneshot_up_to_bytes", analysis.crossover.oneshot_up_to_bytes
                                     ? nlohmann::json(*analysis.crossover.oneshot_up_to_bytes)
                                     : nlohmann::json(nullptr)},
         {"twoshot_from_bytes", analysis.crossover.twoshot_from_bytes
                                    ? nlohmann::json(*analysis.crossover.twoshot_from_bytes)
                                    : nlohmann::json(nullptr)},
         {"text", analysis.crossover.text}}},
       {"tpot", tpot}};
}

}  // namespace k25
