// The one redaction rule (common/redaction.hpp) and where it is applied: the recorded command line, the
// effective config, serve.api_key's env:NAME, errors, and a report read back.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "analysis/report_reader.hpp"
#include "app/command_line.hpp"
#include "common/error.hpp"
#include "common/redaction.hpp"
#include "config/config_keys.hpp"
#include "config/config_loader.hpp"
#include "serve/request_body.hpp"

namespace {

const std::string kModel =
    "model:\n  name: tiny\n  hidden_size: 256\n  num_layers: 4\n  routed_experts: 16\n  experts_per_token: "
    "4\n";

k25::CommandLine parse(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  return k25::parse_command_line(static_cast<int>(args.size()), argv.data(), false);
}

}  // namespace

TEST_CASE("secret names: keys, tokens, secrets and passwords, not counts per token", "[redaction]") {
  for (const char* name :
       {"OPENAI_API_KEY", "api_key", "api-key", "apiKey", "HF_TOKEN", "token", "accessToken", "GITHUB_TOKEN",
        "CLIENT_SECRET", "DB_PASSWORD", "mysql_passwd", "AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY",
        "Authorization", "serve.api_key", "GOOGLE_CREDENTIALS"})
    CHECK(k25::is_secret_name(name));
  for (const char* name :
       {"bytes_per_token", "experts_per_token", "max_tokens", "tokens", "api_key_set", "key", "NCCL_IB_HCA",
        "OMPI_MCA_btl", "SLURM_JOB_ID", "endpoint", "tokens_per_chunk_p50", ""})
    CHECK_FALSE(k25::is_secret_name(name));
}

TEST_CASE("a URL loses its user-info and its secret query values, nothing else", "[redaction]") {
  CHECK(k25::redact_url("http://user:password@host:8000/v1") == "http://<redacted>@host:8000/v1");
  CHECK(k25::redact_url("https://TOKEN@host/v1") == "https://<redacted>@host/v1");
  CHECK(k25::redact_url("user:pw@127.0.0.1:8000") == "<redacted>@127.0.0.1:8000");  // as curl reads it
  CHECK(k25::redact_url("http://u:pa/ss@host/v1") == "http://<redacted>@host/v1");  // a '/' in the password
  CHECK(k25::redact_url("http://h/v1?api_key=sk-1&x=2&key=k&token=t#top") ==
        "http://h/v1?api_key=<redacted>&x=2&key=<redacted>&token=<redacted>#top");
  CHECK(k25::redact_url("http://127.0.0.1:8000/itl_ms=5/v1") == "http://127.0.0.1:8000/itl_ms=5/v1");
  CHECK(k25::redact_url("http://[::1]:8000/v1") == "http://[::1]:8000/v1");
  CHECK(k25::redact_url("") == "");
}

TEST_CASE("text loses every secret a command line, a message or an answer can hold", "[redaction]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"k25comm --api-key sk-123 --endpoint http://a:b@127.0.0.1:9/x?api_key=zz&x=1",
       "k25comm --api-key <redacted> --endpoint http://<redacted>@127.0.0.1:9/x?api_key=<redacted>&x=1"},
      {"--api-key=sk-1 --api-key env:OPENAI_API_KEY", "--api-key=<redacted> --api-key env:OPENAI_API_KEY"},
      {"OPENAI_API_KEY=sk-9 HF_TOKEN=abc bytes_per_token=3",
       "OPENAI_API_KEY=<redacted> HF_TOKEN=<redacted> bytes_per_token=3"},
      {"`--api-key sk-1`", "`--api-key <redacted>`"},
      {"sent Authorization: Bearer abc\nnext", "sent Authorization: <redacted>\nnext"},
      {"Bearer xyz, then", "Bearer <redacted>, then"},
      {"{\"api_key\": \"sk-1\", \"x\": \"y\"}",
       "{\"api_key\":\"<redacted>\",\"x\":\"y\"}"},  // JSON: written again
      {"HTTP 401: {\"api_key\": \"sk-1\", \"x\": \"y\"}",
       "HTTP 401: {\"api_key\": \"<redacted>\", \"x\": \"y\"}"},
      {"--endpoint=u:p@h:1", "--endpoint=<redacted>@h:1"},
      {"--endpoint u:p@h:1", "--endpoint <redacted>@h:1"},
      {"serve endpoint http://u:p@h:1/v1/models is unreachable: Couldn't connect to server",
       "serve endpoint http://<redacted>@h:1/v1/models is unreachable: Couldn't connect to server"},
  };
  for (const auto& [given, expected] : cases) {
    INFO(given);
    CHECK(k25::redact_text(given) == expected);
    CHECK(k25::redact_text(expected) == expected);  // idempotent
  }
  // What must stay as it is: prose, counts, e-mail-like names, URLs without credentials, MPI's URIs.
  for (const char* plain :
       {"sent as a bearer token; never written", "bytes_per_token=3 experts_per_token=4",
        "git@github.com:x/y", "serve.api_key: env:X names an environment variable that is not set",
        "http://127.0.0.1:8000/v1/models", "968097792.0;tcp://192.0.2.2:55783;tcp6://[fd00::2]:40149",
        "sweep: 12 points (3 x 4 x 1 mode)"})
    CHECK(k25::redact_text(plain) == plain);
  const std::vector<std::string> known = {"sk-known-123", "abc"};  // "abc": too short to be hidden everywhere
  CHECK(k25::redact_text("HTTP 401: bad key sk-known-123 for abc", known) ==
        "HTTP 401: bad key <redacted> for abc");
}

TEST_CASE("a JSON answer is redacted inside its structure and stays JSON, the URL rule holds for URLs only",
          "[redaction]") {
  // Issue 51: compact JSON that names an e-mail address lost its start ("<redacted>@corp.com is not
  // allowed\"}").
  const std::string detail = R"({"detail":"alice@corp.com is not allowed"})";
  CHECK(k25::redact_text(detail) == detail);
  CHECK(k25::redact_text("HTTP 403: " + detail) == "HTTP 403: " + detail);
  CHECK(k25::redact_text(R"({"detail":"user alice:x@corp.com"})") ==
        R"({"detail":"user <redacted>@corp.com"})");
  // A 2xx answer that echoes the key and names secrets stays JSON, its members in their order.
  const std::vector<std::string> known = {"sk-echoed-123"};
  const std::string echoed = k25::redact_text(
      R"({"model":"m","echo":"key sk-echoed-123","api_key":"sk-other","n":{"token":5},"url":"http://u:p@h/x"})",
      known);
  CHECK(
      echoed ==
      R"({"model":"m","echo":"key <redacted>","api_key":"<redacted>","n":{"token":"<redacted>"},"url":"http://<redacted>@h/x"})");
  CHECK_FALSE(nlohmann::json::parse(echoed, nullptr, false).is_discarded());
  CHECK(k25::redact_text(echoed, known) == echoed);
  // JSON on several lines stays on several lines; an array too; text that only looks like JSON is text.
  const std::string pretty = k25::redact_text("{\n  \"password\": \"pw\",\n  \"ok\": [1, 2]\n}");
  CHECK(pretty == "{\n  \"password\": \"<redacted>\",\n  \"ok\": [\n    1,\n    2\n  ]\n}");
  CHECK(k25::redact_text(R"([{"Authorization":"Bearer x"}])") == R"([{"Authorization":"<redacted>"}])");
  CHECK(k25::redact_text("{not json: u:p@h}") == "{not json: <redacted>@h}");
  // The scheme-less user-info rule: a user-info of URL characters before '@' and a host after it.
  CHECK(k25::redact_text("curl -u x u:p@h:8000/v1") == "curl -u x <redacted>@h:8000/v1");
  CHECK(k25::redact_text("see a/b:c@d") == "see a/b:c@d");  // a path, not an authority
  CHECK(k25::redact_text("mail alice@corp.com, bob:x@") == "mail alice@corp.com, bob:x@");
}

TEST_CASE("the recorded command line hides each secret flag's value, even one with a space", "[redaction]") {
  const std::vector<std::string> words = {"k25comm",      "--api-key",    "sk a b", "--endpoint",
                                          "http://u:p@h", "--api-key=s2", "--out",  "x"};
  CHECK(k25::redact_command_line(words) ==
        "k25comm --api-key <redacted> --endpoint http://<redacted>@h --api-key=<redacted> --out x");
  const k25::CommandLine cli = parse({"k25comm", "--sizes", "x.yaml", "--api-key", "sk-secret-1",
                                      "--endpoint", "http://user:pass@127.0.0.1:1", "--out", "o"});
  CHECK(cli.text ==
        "k25comm --sizes x.yaml --api-key <redacted> --endpoint http://<redacted>@127.0.0.1:1 --out o");
  CHECK(parse({"k25comm", "--sizes", "x.yaml", "--api-key=sk-secret-1"}).text ==
        "k25comm --sizes x.yaml --api-key=<redacted>");
  CHECK(parse({"k25comm", "--sizes", "x.yaml", "--api-key", "env:OPENAI_API_KEY"}).text ==
        "k25comm --sizes x.yaml --api-key env:OPENAI_API_KEY");
}

TEST_CASE("JSON documents and environments: secret-named members and secrets in strings", "[redaction]") {
  const nlohmann::json given = nlohmann::json::parse(R"({
    "run": {"command_line": "x --api-key k", "env": {"A_TOKEN": "t", "NCCL_DEBUG": "INFO"},
            "config": {"serve": {"endpoint": "http://u:p@h", "max_tokens": 8}}},
    "n": {"token": 5, "bytes_per_token": 7, "list": ["HF_TOKEN=x", 1]}})");
  const nlohmann::json expected = nlohmann::json::parse(R"({
    "run": {"command_line": "x --api-key <redacted>", "env": {"A_TOKEN": "<redacted>", "NCCL_DEBUG": "INFO"},
            "config": {"serve": {"endpoint": "http://<redacted>@h", "max_tokens": 8}}},
    "n": {"token": "<redacted>", "bytes_per_token": 7, "list": ["HF_TOKEN=<redacted>", 1]}})");
  CHECK(k25::redact_json(given) == expected);
  CHECK(k25::redact_json(expected) == expected);
  CHECK(k25::redact_environment(
            {{"NCCL_NET_PASSWORD", "p"}, {"UCX_TLS", "tcp"}, {"SLURM_JOB_NAME", "a:b@c"}}) ==
        std::map<std::string, std::string>{
            {"NCCL_NET_PASSWORD", "<redacted>"}, {"UCX_TLS", "tcp"}, {"SLURM_JOB_NAME", "<redacted>@c"}});
}

TEST_CASE("an error never carries a secret in its message or its failed call", "[redaction]") {
  const k25::RuntimeFault fault("serve endpoint http://u:secret-pw@h:1/v1/models is unreachable",
                                "GET http://u:secret-pw@h:1/v1/models");
  CHECK(std::string(fault.what()).find("secret-pw") == std::string::npos);
  CHECK(fault.message() == "serve endpoint http://<redacted>@h:1/v1/models is unreachable");
  CHECK(fault.failed_call() == "GET http://<redacted>@h:1/v1/models");
}

TEST_CASE("serve.api_key: env:NAME reads the key from that variable, the effective config holds neither",
          "[redaction][config]") {
  ::setenv("K25_TEST_REDACTION_KEY", "sk-from-env-1", 1);
  const k25::RunConfig config = k25::parse_config(
      kModel + "serve:\n  endpoint: http://user:pw@127.0.0.1:9/v1\n  api_key: env:K25_TEST_REDACTION_KEY\n",
      "twin.yaml");
  CHECK(config.serve.api_key == "sk-from-env-1");
  CHECK(config.serve.api_key_env == "K25_TEST_REDACTION_KEY");
  CHECK(config.serve.endpoint == "http://user:pw@127.0.0.1:9/v1");  // what libcurl gets
  const nlohmann::json written = k25::config_to_json(config);
  CHECK(written.at("serve").at("endpoint") == "http://<redacted>@127.0.0.1:9/v1");
  CHECK(written.dump().find("sk-from-env-1") == std::string::npos);
  CHECK(written.dump().find("pw@") == std::string::npos);

  const k25::RunConfig unset =
      k25::parse_config(kModel + "serve:\n  api_key: env:K25_TEST_REDACTION_UNSET\n", "twin.yaml");
  CHECK(unset.serve.api_key.empty());
  CHECK(unset.serve.api_key_env == "K25_TEST_REDACTION_UNSET");
  CHECK_THROWS_WITH(k25::parse_config(kModel + "serve:\n  api_key: env:1X\n", "twin.yaml"),
                    Catch::Contains("env: is followed by the name of an environment variable"));
  const k25::RunConfig literal = k25::parse_config(kModel + "serve:\n  api_key: sk-literal\n", "twin.yaml");
  CHECK(literal.serve.api_key == "sk-literal");
  CHECK(literal.serve.api_key_env.empty());
}

TEST_CASE("a 401 or 403 names where the key came from, never the key", "[redaction][serve]") {
  k25::ServeSpec spec;
  spec.endpoint = "http://u:pw@h:1";
  CHECK(
      k25::refused_credentials_hint(spec) ==
      " from POST http://<redacted>@h:1/v1/completions: no bearer token was sent: give one with --api-key env:NAME (serve.api_key), which reads it from the environment variable NAME");
  spec.api_key = "sk-given";
  CHECK(k25::credentials_hint(spec).find("sk-given") == std::string::npos);
  CHECK_THAT(k25::credentials_hint(spec), Catch::Contains("--api-key's (serve.api_key)"));
  spec.api_key_env = "OPENAI_API_KEY";
  CHECK_THAT(k25::credentials_hint(spec), Catch::Contains("the value of OPENAI_API_KEY"));
}

TEST_CASE("a report an older k25comm wrote with secrets in it reads back without them",
          "[redaction][report_reader]") {
  const std::string old_report = R"({"schema_version": 3, "tool": {"name": "k25comm"},
    "run": {"command_line": "k25comm --api-key sk-old-1 --endpoint http://u:old-pw@h:1", "ranks": 2,
            "env": {"OMPI_ARGV": "--api-key sk-old-1", "NCCL_PASSWORD": "old-pw"},
            "config": {"serve": {"endpoint": "http://u:old-pw@h:1"}}},
    "serve": {"endpoint": "http://u:old-pw@h:1", "levels": []}, "results": []})";
  const k25::RunReport report = k25::parse_report_text(old_report, "old.json");
  CHECK(report.run.command_line == "k25comm --api-key <redacted> --endpoint http://<redacted>@h:1");
  CHECK(report.run.env.at("OMPI_ARGV") == "--api-key <redacted>");
  CHECK(report.run.env.at("NCCL_PASSWORD") == "<redacted>");
  CHECK(report.run.config.at("serve").at("endpoint") == "http://<redacted>@h:1");
  CHECK(report.serve.endpoint == "http://<redacted>@h:1");
  // The same run as a journal.
  const std::string journal =
      R"({"type": "run_start", "schema_version": 3, "run": {"command_line": "k25comm --api-key=sk-old-1"}})"
      "\n"
      R"({"type": "serve_start", "serve": {"endpoint": "http://u:old-pw@h:1", "levels": []}})"
      "\n";
  const k25::RunReport from_journal = k25::parse_report_text(journal, "journal.jsonl");
  CHECK(from_journal.run.command_line == "k25comm --api-key=<redacted>");
  CHECK(from_journal.serve.endpoint == "http://<redacted>@h:1");
}
