// The one rule of what a secret is and how k25comm hides it in everything it records, writes and prints.
//
// A secret is: the value of a flag, variable, query parameter or JSON member whose name says it holds one
// (is_secret_name: --api-key, OPENAI_API_KEY, HF_TOKEN, ...), the user-info of a URL ("user:password@"), the
// credentials after "Bearer " or "Authorization: ", and any secret the caller knows (the key the run sends).
// Each becomes kRedacted. A reference "env:NAME" (serve.api_key: env:OPENAI_API_KEY) names where a key is
// kept, not the key, and is kept. What k25comm records (command lines, URLs, messages, reports) redacts to
// itself when redacted again; in odd text a second pass may hide more around a "<redacted>", never less.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace k25 {

inline constexpr std::string_view kRedacted = "<redacted>";

// True when `name` says it holds a secret. Compared upper-case, '-' and '.' read as '_', by its '_'-separated
// words: it ends in API_KEY, APIKEY, ACCESS_KEY, SECRET_KEY, PRIVATE_KEY, TOKEN (but not PER_TOKEN: a count
// per token, as bytes_per_token), SECRET, AUTHORIZATION or CREDENTIALS; or a word holds PASSWORD or PASSWD.
bool is_secret_name(std::string_view name);

// `url` without its secrets: the user-info ("user:password@") becomes "<redacted>@" (with or without a
// scheme, as curl reads "user:pw@host:8000"; the last '@' before the query counts, so that a password with a
// '/' is hidden whole), and the value of each query parameter with a secret name, or named key, sig,
// signature or auth, becomes "<redacted>".
std::string redact_url(std::string_view url);

// Free text (a command line, a message, a log or console line) without secrets: every URL in it as
// redact_url, the value of a secret-named flag ("--api-key VALUE", "--api-key=VALUE"), NAME=VALUE and "NAME":
// "VALUE" with a secret NAME, "Bearer TOKEN", "Authorization: ..." to the end of the line, a scheme-less
// "user:password@host" (URL user-info characters only: "alice@corp.com" in a sentence is no URL), and every
// one of `known` (of at least 4 characters: shorter ones would hide ordinary words) wherever it stands. A
// text that is a JSON object or array (a server's answer) is redacted inside its structure as redact_json
// does, and stays JSON: unchanged where nothing in it is secret, else written again compactly (indented where
// it was on several lines), its members in their order.
std::string redact_text(std::string_view text, std::span<const std::string> known = {});

// The command line to record: the words joined by spaces, the value of each secret-named flag (the next word
// after "--api-key", or what follows "--api-key=") redacted, and each word through redact_text.
std::string redact_command_line(std::span<const std::string> words);

// `document` without secrets: every member with a secret name holding a string or number becomes
// "<redacted>", every other string goes through redact_text (with `known`).
nlohmann::json redact_json(nlohmann::json document, std::span<const std::string> known = {});

// Environment variables to record: a secret-named one's value becomes "<redacted>", the others' values go
// through redact_text.
std::map<std::string, std::string> redact_environment(std::map<std::string, std::string> variables);

}  // namespace k25
