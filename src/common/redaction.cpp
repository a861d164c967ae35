// Finds secrets in names, URLs, text, command lines, JSON documents and environments, and redacts them.
#include "common/redaction.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>

namespace k25 {
namespace {

constexpr std::string_view kEnvReference = "env:";

bool is_upper(char c) {
  return std::isupper(static_cast<unsigned char>(c)) != 0;
}

bool is_lower_or_digit(char c) {
  return std::islower(static_cast<unsigned char>(c)) != 0 || std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// "OPENAI_API_KEY", "api-key", "serve.api_key", "accessToken" -> their upper-case words.
std::vector<std::string> name_words(std::string_view name) {
  std::vector<std::string> words(1);
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '_' || c == '-' || c == '.') {
      if (!words.back().empty()) words.emplace_back();
      continue;
    }
    if (is_upper(c) && i > 0 && is_lower_or_digit(name[i - 1]) && !words.back().empty()) words.emplace_back();
    words.back().push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  if (words.back().empty()) words.pop_back();
  return words;
}

bool is_reference(std::string_view value) {
  return value.starts_with(kEnvReference);
}

// A value to hide: not empty, not already hidden, not a reference to where a key is kept.
bool needs_redaction(std::string_view value) {
  return !value.empty() && value != kRedacted && !is_reference(value);
}

bool is_secret_query_name(std::string_view name) {
  if (is_secret_name(name)) return true;
  const std::vector<std::string> words = name_words(name);
  if (words.size() != 1) return false;
  for (const char* plain : {"KEY", "SIG", "SIGNATURE", "AUTH"})
    if (words.front() == plain) return true;
  return false;
}

bool is_scheme_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '+' || c == '-' || c == '.';
}

// Where a URL standing in text ends: at white space, a quote, a bracket of prose or markup.
bool ends_url(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0 || c == '"' || c == '\'' || c == '`' || c == '<' ||
         c == '>' || c == '{' || c == '}' || c == '|' || c == '\\' || c == '^';
}

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.';
}

bool is_quote(char c) {
  return c == '"' || c == '\'' || c == '`';
}

// A character of a URL's user-info (RFC 3986: unreserved, percent-encoded, sub-delims, ':'), '=' and quotes
// left out: they end a "NAME=" or a quoted string before it.
bool is_user_info_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
         std::string_view("-._~%!$&()*+,;:").find(c) != std::string_view::npos;
}

// The redacted query of a URL ("a=1&api_key=x", without '?').
std::string redact_query(std::string_view query) {
  std::string out;
  std::size_t begin = 0;
  for (;;) {
    const std::size_t end = std::min(query.find('&', begin), query.size());
    const std::string_view parameter = query.substr(begin, end - begin);
    const std::size_t equals = parameter.find('=');
    if (equals != std::string_view::npos && is_secret_query_name(parameter.substr(0, equals)) &&
        needs_redaction(parameter.substr(equals + 1))) {
      out.append(parameter.substr(0, equals + 1));
      out.append(kRedacted);
    } else {
      out.append(parameter);
    }
    if (end >= query.size()) return out;
    out.push_back('&');
    begin = end + 1;
  }
}

std::string replace_known(std::string_view text, std::span<const std::string> known) {
  std::string out(text);
  for (const std::string& secret : known) {
    if (secret.size() < 4 || !needs_redaction(secret)) continue;
    for (std::size_t at = out.find(secret); at != std::string::npos;
         at = out.find(secret, at + kRedacted.size()))
      out.replace(at, secret.size(), kRedacted);
  }
  return out;
}

// One replacement in a text: [begin, end) becomes `with`.
struct Replacement {
  std::size_t begin = 0, end = 0;
  std::string with;
};

// The first replacement of a kind that begins at or after `from` (and ends after it), or nullopt.
using NextReplacement = std::optional<Replacement> (*)(std::string_view text, std::size_t from);

// `text` with every replacement `next` finds, left to right.
std::string replace_each(std::string_view text, NextReplacement next) {
  std::string out;
  std::size_t copied = 0;
  for (std::optional<Replacement> found = next(text, copied); found && found->end > copied;
       found = next(text, copied)) {
    out.append(text.substr(copied, found->begin - copied));
    out.append(found->with);
    copied = found->end;
  }
  out.append(text.substr(copied));
  return out;
}

// A "scheme://..." through redact_url.
std::optional<Replacement> next_url(std::string_view text, std::size_t from) {
  for (std::size_t marker = text.find("://", from); marker != std::string_view::npos;
       marker = text.find("://", marker + 3)) {
    std::size_t begin = marker;
    while (begin > from && is_scheme_char(text[begin - 1])) --begin;
    if (begin == marker) continue;
    std::size_t end = marker + 3;
    while (end < text.size() && !ends_url(text[end])) ++end;
    return Replacement{begin, end, redact_url(text.substr(begin, end - begin))};
  }
  return std::nullopt;
}

bool equals_ignoring_case(std::string_view text, std::size_t at, std::string_view word) {
  if (at + word.size() > text.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(text[at + i])) != word[i]) return false;
  return true;
}

// What follows "Authorization:", up to the end of its line or a quote.
std::optional<Replacement> next_authorization(std::string_view text, std::size_t from) {
  constexpr std::string_view kHeader = "authorization:";
  for (std::size_t at = from; at < text.size(); ++at) {
    if (!equals_ignoring_case(text, at, kHeader)) continue;
    std::size_t begin = at + kHeader.size();
    while (begin < text.size() && text[begin] == ' ') ++begin;
    std::size_t end = begin;
    while (end < text.size() && text[end] != '\n' && text[end] != '\r' && !is_quote(text[end])) ++end;
    if (needs_redaction(text.substr(begin, end - begin)))
      return Replacement{begin, end, std::string(kRedacted)};
  }
  return std::nullopt;
}

// The VALUE of "NAME": "VALUE" with a secret NAME (JSON in a message or a server's answer).
std::optional<Replacement> next_quoted_member(std::string_view text, std::size_t from) {
  for (std::size_t colon = text.find("\":", from); colon != std::string_view::npos;
       colon = text.find("\":", colon + 2)) {
    const std::size_t name_quote = colon == 0 ? std::string_view::npos : text.rfind('"', colon - 1);
    if (name_quote == std::string_view::npos || name_quote < from) continue;
    if (!is_secret_name(text.substr(name_quote + 1, colon - name_quote - 1))) continue;
    std::size_t begin = colon + 2;
    while (begin < text.size() && text[begin] == ' ') ++begin;
    if (begin >= text.size() || text[begin] != '"') continue;
    ++begin;
    std::size_t end = begin;
    while (end < text.size() && text[end] != '"') end += text[end] == '\\' ? 2 : 1;
    end = std::min(end, text.size());
    if (needs_redaction(text.substr(begin, end - begin)))
      return Replacement{begin, end, std::string(kRedacted)};
  }
  return std::nullopt;
}

// A word without the quotes and closing punctuation around it: [begin, end) within the word.
struct WordCore {
  std::size_t begin = 0, end = 0;
};

WordCore core_of(std::string_view word) {
  WordCore core{0, word.size()};
  while (core.begin < core.end && is_quote(word[core.begin])) ++core.begin;
  while (core.end > core.begin &&
         (is_quote(word[core.end - 1]) || word[core.end - 1] == ',' || word[core.end - 1] == ';' ||
          word[core.end - 1] == ')' || word[core.end - 1] == ']' || word[core.end - 1] == '}'))
    --core.end;
  return core;
}

// The word with [begin, end) redacted when it needs to be.
std::string with_hidden(std::string_view word, std::size_t begin, std::size_t end) {
  if (!needs_redaction(word.substr(begin, end - begin))) return std::string(word);
  return std::string(word.substr(0, begin)) + std::string(kRedacted) + std::string(word.substr(end));
}

// NAME=VALUE with a secret NAME, each one in the word; a scheme-less "user:password@host".
std::string redact_word(std::string_view word) {
  const WordCore core = core_of(word);
  std::string out(word.substr(0, core.begin));
  std::string_view body = word.substr(core.begin, core.end - core.begin);
  std::string rest(word.substr(core.end));
  std::string redacted;
  std::size_t copied = 0;
  for (std::size_t equals = body.find('='); equals != std::string_view::npos;
       equals = body.find('=', equals + 1)) {
    std::size_t name_begin = equals;
    while (name_begin > copied && is_name_char(body[name_begin - 1])) --name_begin;
    const std::size_t value_begin = equals + 1;
    if (!is_secret_name(body.substr(name_begin, equals - name_begin))) continue;
    std::size_t value_end = value_begin;
    while (value_end < body.size() && body[value_end] != '&') ++value_end;
    redacted.append(body.substr(copied, value_begin - copied));
    redacted.append(needs_redaction(body.substr(value_begin, value_end - value_begin))
                        ? std::string(kRedacted)
                        : std::string(body.substr(value_begin, value_end - value_begin)));
    copied = value_end;
    equals = value_end == 0 ? 0 : value_end - 1;
  }
  redacted.append(body.substr(copied));
  // "user:password@host" without a scheme (curl reads it as http://): the URL user-info characters before the
  // '@' (after a "--flag=", a "NAME=" or a JSON string's quote), where they hold a ':' and a host follows.
  // Not in a path ('/' before them) nor in other text: `{"detail":"alice@corp.com` has no user-info.
  const std::size_t at = redacted.rfind('@');
  if (at != std::string::npos && at > 0 && at + 1 < redacted.size() &&
      redacted.find("://") == std::string::npos &&
      (std::isalnum(static_cast<unsigned char>(redacted[at + 1])) != 0 || redacted[at + 1] == '[')) {
    std::size_t from = at;
    while (from > 0 && is_user_info_char(redacted[from - 1])) --from;
    const std::string_view user_info = std::string_view(redacted).substr(from, at - from);
    if ((from == 0 || redacted[from - 1] != '/') && user_info.find(':') != std::string_view::npos &&
        needs_redaction(user_info))
      redacted = redacted.substr(0, from) + std::string(kRedacted) + redacted.substr(at);
  }
  return out + redacted + rest;
}

// "--NAME" of a secret-named flag, with "=VALUE" or not.
struct FlagWord {
  bool secret = false;
  std::size_t equals = std::string_view::npos;  // within the word
};

FlagWord secret_flag(std::string_view word, std::size_t begin) {
  FlagWord flag;
  if (word.substr(begin, 2) != "--") return flag;
  flag.equals = word.find('=', begin);
  const std::size_t name_end = flag.equals == std::string_view::npos ? word.size() : flag.equals;
  flag.secret = is_secret_name(word.substr(begin + 2, name_end - begin - 2));
  return flag;
}

// The word-level rules over white-space-separated words: a secret flag's value, NAME=VALUE, "Bearer TOKEN",
// scheme-less user-info.
std::string redact_words(std::string_view text) {
  std::string out;
  bool hide_next = false;
  std::size_t at = 0;
  while (at < text.size()) {
    if (std::isspace(static_cast<unsigned char>(text[at])) != 0) {
      out.push_back(text[at++]);
      continue;
    }
    std::size_t end = at;
    while (end < text.size() && std::isspace(static_cast<unsigned char>(text[end])) == 0) ++end;
    const std::string_view word = text.substr(at, end - at);
    const WordCore core = core_of(word);
    const bool hide = hide_next;
    hide_next = false;
    if (hide && !word.starts_with("--")) {
      out.append(with_hidden(word, core.begin, core.end));
    } else if (const FlagWord flag = secret_flag(word, core.begin); flag.secret) {
      hide_next = flag.equals == std::string_view::npos;
      out.append(hide_next ? std::string(word)
                           : with_hidden(word, flag.equals + 1, std::max(core.end, flag.equals + 1)));
    } else {
      const std::string_view body = word.substr(core.begin, core.end - core.begin);
      hide_next = body == "Bearer";  // the HTTP scheme's spelling: "a bearer token" in prose is no header
      out.append(redact_word(word));
    }
    at = end;
  }
  return out;
}

// `document` with every member of a secret name that holds a string or a number as kRedacted, and every other
// string through redact_text (nlohmann::json, or ordered_json where a text's members keep their order).
template <class Json>
Json redacted_document(Json document, std::span<const std::string> known) {
  if (document.is_string()) return Json(redact_text(document.template get_ref<const std::string&>(), known));
  if (document.is_array()) {
    for (Json& item : document) item = redacted_document(std::move(item), known);
    return document;
  }
  if (!document.is_object()) return document;
  for (auto member = document.begin(); member != document.end(); ++member) {
    const bool scalar = member->is_string() || member->is_number();
    if (scalar && is_secret_name(member.key()) &&
        !(member->is_string() && !needs_redaction(member->template get_ref<const std::string&>())))
      *member = std::string(kRedacted);
    else
      *member = redacted_document(std::move(*member), known);
  }
  return document;
}

// A text that is a JSON object or array (a server's answer, a document) redacted inside its structure, so
// that it stays JSON: as it was where nothing in it is secret, else written again (members in their order,
// indented where it was on several lines). nullopt for any other text.
std::optional<std::string> redact_json_text(std::string_view text, std::span<const std::string> known) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || (text[first] != '{' && text[first] != '[')) return std::nullopt;
  const nlohmann::ordered_json parsed =
      nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return std::nullopt;
  const nlohmann::ordered_json redacted = redacted_document(parsed, known);
  if (redacted == parsed) return std::string(text);
  const int indent = text.find('\n', first) == std::string_view::npos ? -1 : 2;
  return redacted.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace

bool is_secret_name(std::string_view name) {
  const std::vector<std::string> words = name_words(name);
  if (words.empty()) return false;
  for (const std::string& word : words)
    if (word.find("PASSWORD") != std::string::npos || word.find("PASSWD") != std::string::npos) return true;
  const std::string& last = words.back();
  const std::string before = words.size() > 1 ? words[words.size() - 2] : "";
  if (last == "TOKEN") return before != "PER";
  if (last == "KEY")
    return before == "API" || before == "ACCESS" || before == "SECRET" || before == "PRIVATE";
  constexpr std::array<std::string_view, 7> kSecretLastWords = {
      "APIKEY", "SECRET", "SECRETS", "AUTHORIZATION", "CREDENTIAL", "CREDENTIALS", "ACCESSTOKEN"};
  return std::find(kSecretLastWords.begin(), kSecretLastWords.end(), last) != kSecretLastWords.end();
}

std::string redact_url(std::string_view url) {
  std::size_t authority = 0;
  if (const std::size_t marker = url.find("://");
      marker != std::string_view::npos && marker > 0 &&
      std::all_of(url.begin(), url.begin() + marker, is_scheme_char))
    authority = marker + 3;
  const std::size_t query = std::min(url.find('?', authority), url.size());
  const std::size_t fragment = std::min(url.find('#', query), url.size());
  std::string out(url.substr(0, authority));
  const std::string_view before_query = url.substr(authority, query - authority);
  const std::size_t at = before_query.rfind('@');
  if (at != std::string_view::npos && needs_redaction(before_query.substr(0, at))) {
    out.append(kRedacted);
    out.append(before_query.substr(at));
  } else {
    out.append(before_query);
  }
  if (query < url.size()) {
    out.push_back('?');
    out.append(redact_query(url.substr(query + 1, fragment - query - 1)));
  }
  out.append(url.substr(fragment));
  return out;
}

std::string redact_text(std::string_view text, std::span<const std::string> known) {
  if (std::optional<std::string> document = redact_json_text(text, known)) return *document;
  const std::string without_known = replace_known(text, known);
  const std::string without_urls = replace_each(without_known, next_url);
  const std::string without_headers = replace_each(without_urls, next_authorization);
  return redact_words(replace_each(without_headers, next_quoted_member));
}

std::string redact_command_line(std::span<const std::string> words) {
  std::string line;
  bool hide_next = false;
  for (const std::string& word : words) {
    std::string recorded = word;
    if (hide_next && !word.starts_with("--")) {
      if (needs_redaction(word)) recorded = kRedacted;
      hide_next = false;
    } else if (const FlagWord flag = secret_flag(word, 0); flag.secret) {
      hide_next = flag.equals == std::string::npos;
      if (!hide_next) recorded = with_hidden(word, flag.equals + 1, word.size());
    } else {
      hide_next = false;
    }
    if (!line.empty()) line.push_back(' ');
    line += redact_text(recorded);
  }
  return line;
}

nlohmann::json redact_json(nlohmann::json document, std::span<const std::string> known) {
  return redacted_document(std::move(document), known);
}

std::map<std::string, std::string> redact_environment(std::map<std::string, std::string> variables) {
  for (auto& [name, value] : variables)
    value = is_secret_name(name) && needs_redaction(value) ? std::string(kRedacted) : redact_text(value);
  return variables;
}

}  // namespace k25
