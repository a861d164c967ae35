// JSON form of the serve phase's results (report.json `serve` and the journal's serve_level lines).
#include "serve/serve_result.hpp"

#include <fmt/format.h>

#include "common/json_integer.hpp"
#include "common/json_list.hpp"

namespace k25 {

std::string describe_errors(const ServeLevel& level) {
  std::string text;
  for (const auto& [error_class, count] : level.errors) {
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", error_class, count);
    const auto example = level.error_examples.find(error_class);
    if (example != level.error_examples.end() && !example->second.empty())
      text += " (" + example->second + ")";
  }
  return text;
}

bool tpot_per_chunk(const ServeLevel& level) {
  return level.chunk_counted > 0;
}

bool several_tokens_per_chunk(const ServeLevel& level) {
  return level.tokens_per_chunk_p50 && *level.tokens_per_chunk_p50 >= 1.5;
}

namespace {

nlohmann::json optional_numbers(const std::map<std::string, std::optional<double>>& values) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, value] : values) j[name] = value ? nlohmann::json(*value) : nlohmann::json(nullptr);
  return j;
}

std::map<std::string, std::optional<double>> read_optional_numbers(const nlohmann::json& j, const char* key) {
  std::map<std::string, std::optional<double>> values;
  const auto member = j.find(key);
  if (member == j.end() || member->is_null()) return values;
  if (!member->is_object()) throw std::invalid_argument(fmt::format("'{}' must be an object", key));
  for (const auto& [name, value] : member->items()) {
    if (value.is_null()) {
      values[name] = std::nullopt;
    } else if (value.is_number()) {
      values[name] = value.get<double>();
    } else {
      throw std::invalid_argument(fmt::format("'{}.{}' must be a number or null", key, name));
    }
  }
  return values;
}

}  // namespace

void to_json(nlohmann::json& j, const ServeLevel& l) {
  j = nlohmann::json{
      {"concurrency", l.concurrency},
      {"requests", l.requests},
      {"completed", l.completed},
      {"failed", l.failed},
      {"errors", l.errors},
      {"ttft_ms", stats_or_null(l.ttft_ms)},
      {"tpot_ms", stats_or_null(l.tpot_ms)},
      {"itl_ms", stats_or_null(l.itl_ms)},
      {"e2el_ms", stats_or_null(l.e2el_ms)},
      {"output_tokens_per_s", l.output_tokens_per_s},
      {"requests_per_s", l.requests_per_s},
      {"window_s", l.window_s},
      {"output_tokens", l.output_tokens},
      {"warmup_requests", l.warmup_requests},
      {"window_kind", l.window_kind},
      {"token_count_source", l.token_count_source},
      {"chunk_counted", l.chunk_counted},
      {"tpot_per", tpot_per_chunk(l) ? "chunk" : "token"},
      {"output_unit", tpot_per_chunk(l) ? "chunk" : "token"},
      {"tokens_per_chunk_p50",
       l.tokens_per_chunk_p50 ? nlohmann::json(*l.tokens_per_chunk_p50) : nlohmann::json(nullptr)},
      {"token_interval_ms", stats_or_null(l.token_interval_ms)},
      {"error_examples", l.error_examples},
      {"duration_s", l.duration_s},
      {"input_tokens", l.input_tokens ? nlohmann::json(*l.input_tokens) : nlohmann::json(nullptr)},
      {"vllm_bench_serve", optional_numbers(l.vllm_bench_serve)}};
  if (l.interrupted) {
    j["interrupted"] = true;
    j["planned_requests"] = l.planned_requests;
  }
}

void from_json(const nlohmann::json& j, ServeLevel& l) {
  l.concurrency = json_integer_at(j, "concurrency", 1);
  l.requests = json_integer_at(j, "requests", 0);
  l.completed = json_integer_at(j, "completed", 0);
  l.failed = json_integer_at(j, "failed", 0);
  l.errors = json_integer_map<int>(j.value("errors", nlohmann::json()), "errors");
  for (const char* key : {"ttft_ms", "tpot_ms", "itl_ms", "e2el_ms"})
    if (!j.contains(key)) throw std::invalid_argument(fmt::format("'{}' is missing", key));
  l.ttft_ms = stats_from_json_or_null(j, "ttft_ms");
  l.tpot_ms = stats_from_json_or_null(j, "tpot_ms");
  l.itl_ms = stats_from_json_or_null(j, "itl_ms");
  l.e2el_ms = stats_from_json_or_null(j, "e2el_ms");
  if (l.completed == 0) {  // schema_version 1 wrote zeros where there was no sample
    l.ttft_ms.reset();
    l.tpot_ms.reset();
    l.itl_ms.reset();
    l.e2el_ms.reset();
  }
  l.output_tokens_per_s = j.at("output_tokens_per_s").get<double>();
  l.requests_per_s = j.at("requests_per_s").get<double>();
  l.window_s = j.value("window_s", 0.0);
  l.output_tokens = json_integer_or(j, "output_tokens", 0LL, 0LL);
  l.warmup_requests = json_integer_or(j, "warmup_requests", 0, 0);
  l.window_kind = j.value("window_kind", "");
  l.token_count_source = j.value("token_count_source", "");
  // Reports before chunk_counted: "chunks" counted every request by chunks, "mixed" (usage and chunks) some.
  const int counted_before = l.token_count_source == "chunks"  ? l.completed
                             : l.token_count_source == "mixed" ? 1
                                                               : 0;
  l.chunk_counted = json_integer_or(j, "chunk_counted", counted_before, 0);
  if (j.contains("tokens_per_chunk_p50") && j["tokens_per_chunk_p50"].is_number())
    l.tokens_per_chunk_p50 = j["tokens_per_chunk_p50"].get<double>();
  l.token_interval_ms = stats_from_json_or_null(j, "token_interval_ms");
  l.error_examples = j.value("error_examples", std::map<std::string, std::string>{});
  l.duration_s = j.value("duration_s", 0.0);
  if (j.contains("input_tokens") && !j["input_tokens"].is_null())
    l.input_tokens = json_integer_at<long long>(j, "input_tokens", 0LL);
  l.vllm_bench_serve = read_optional_numbers(j, "vllm_bench_serve");
  l.interrupted = j.value("interrupted", false);
  l.planned_requests = json_integer_or(j, "planned_requests", 0, 0);
}

void to_json(nlohmann::json& j, const ServeReport& r) {
  j = nlohmann::json{{"ran", r.ran},
                     {"endpoint", r.endpoint},
                     {"api", r.api},
                     {"model", r.model},
                     {"ttft_definition", r.ttft_definition},
                     {"token_count_source", r.token_count_source},
                     {"e2el_definition", r.e2el_definition},
                     {"clock", r.clock},
                     {"prompt_tokens", r.prompt_tokens},
                     {"prompt_tokens_approximate", r.prompt_tokens_approximate},
                     {"max_tokens", r.max_tokens},
                     {"ignore_eos", r.ignore_eos},
                     {"request_rate", r.request_rate},
                     {"percentiles", r.percentiles},
                     {"levels", r.levels}};
  if (!r.skipped_reason.empty()) j["skipped_reason"] = r.skipped_reason;
  if (!r.stopped_reason.empty()) j["stopped_reason"] = r.stopped_reason;
  if (r.profile.asked) j["profile"] = r.profile;
}

void from_json(const nlohmann::json& j, ServeReport& r) {
  r.ran = j.value("ran", false);
  r.skipped_reason = j.value("skipped_reason", "");
  r.stopped_reason = j.value("stopped_reason", "");
  r.endpoint = j.value("endpoint", "");
  r.api = j.value("api", "");
  r.model = j.value("model", "");
  r.ttft_definition = j.value("ttft_definition", "");
  r.token_count_source = j.value("token_count_source", "");
  r.prompt_tokens = json_integer_or(j, "prompt_tokens", 0, 0);
  r.max_tokens = json_integer_or(j, "max_tokens", 0, 0);
  r.e2el_definition = j.value("e2el_definition", "");
  r.clock = j.value("clock", "");
  r.prompt_tokens_approximate = j.value("prompt_tokens_approximate", true);
  r.ignore_eos = j.value("ignore_eos", false);
  r.request_rate = j.value("request_rate", 0.0);
  r.percentiles = j.value("percentiles", std::vector<double>{});
  r.levels = json_list_or_empty<ServeLevel>(j, "levels");
  r.profile = j.value("profile", ServeProfile{});
}

}  // namespace k25
