// JSON form of the serve phase's results (report.json `serve` and the journal's serve_level lines).
#include "serve/serve_result.hpp"

#include "common/json_integer.hpp"
#include "common/json_list.hpp"

namespace k25 {

void to_json(nlohmann::json& j, const ServeLevel& l) {
  j = nlohmann::json{{"concurrency", l.concurrency},
                     {"requests", l.requests},
                     {"completed", l.completed},
                     {"failed", l.failed},
                     {"errors", l.errors},
                     {"ttft_ms", l.ttft_ms},
                     {"tpot_ms", l.tpot_ms},
                     {"itl_ms", l.itl_ms},
                     {"e2el_ms", l.e2el_ms},
                     {"output_tokens_per_s", l.output_tokens_per_s},
                     {"requests_per_s", l.requests_per_s},
                     {"window_s", l.window_s},
                     {"output_tokens", l.output_tokens},
                     {"warmup_requests", l.warmup_requests},
                     {"window_kind", l.window_kind},
                     {"token_count_source", l.token_count_source},
                     {"error_examples", l.error_examples}};
}

void from_json(const nlohmann::json& j, ServeLevel& l) {
  l.concurrency = json_integer_at(j, "concurrency", 1);
  l.requests = json_integer_at(j, "requests", 0);
  l.completed = json_integer_at(j, "completed", 0);
  l.failed = json_integer_at(j, "failed", 0);
  l.errors = json_integer_map<int>(j.value("errors", nlohmann::json()), "errors");
  l.ttft_ms = j.at("ttft_ms").get<Stats>();
  l.tpot_ms = j.at("tpot_ms").get<Stats>();
  l.itl_ms = j.at("itl_ms").get<Stats>();
  l.e2el_ms = j.at("e2el_ms").get<Stats>();
  l.output_tokens_per_s = j.at("output_tokens_per_s").get<double>();
  l.requests_per_s = j.at("requests_per_s").get<double>();
  l.window_s = j.value("window_s", 0.0);
  l.output_tokens = json_integer_or(j, "output_tokens", 0LL, 0LL);
  l.warmup_requests = json_integer_or(j, "warmup_requests", 0, 0);
  l.window_kind = j.value("window_kind", "");
  l.token_count_source = j.value("token_count_source", "");
  l.error_examples = j.value("error_examples", std::map<std::string, std::string>{});
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
                     {"levels", r.levels}};
  if (!r.skipped_reason.empty()) j["skipped_reason"] = r.skipped_reason;
  if (!r.stopped_reason.empty()) j["stopped_reason"] = r.stopped_reason;
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
  r.levels = json_list_or_empty<ServeLevel>(j, "levels");
}

}  // namespace k25
