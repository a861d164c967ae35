// The one table of config keys: every key's section and name, its value type and limits, its meaning (the
// README's key list and the flag's help), its command-line flag if it has one, how it is read (from YAML and
// from the flag, through the same reader) and how it is written into report.json's effective config. The
// loader, the command line, config_to_json and the README are driven by it; tests check that they agree.
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config_reader.hpp"
#include "config/run_config.hpp"

namespace k25 {

// What a key's value is. The reader, the README's type text, the flag's value name and the probes of the
// flag-against-YAML test are derived from it, so a limit is written once.
struct ValueSpec {
  enum class Kind {
    integer,           // min..max
    unsigned_integer,  // >= 0
    number,            // min..max
    boolean,
    text,          // `form` names it ("string", "URL", "RANK:US")
    integer_list,  // each min..max; `ascending`: strictly
    number_list,   // each min..max
    choice,        // one of `names`
    choice_list,   // a list, each one of `names`
    structured,    // read by the key's own reader; `form` describes it
  };
  Kind kind = Kind::text;
  double min = 0, max = 0;
  bool ascending = false;
  std::vector<std::string> names = {};  // choice, choice_list: from the enumeration's name table
  std::string form = {};                // text, structured

  bool is_list() const;
  // For the README and messages: "integer 1..4096", "bf16 | fp32", "list of integers 1..65536".
  std::string type_text() const;
  // For --help: "INT 1..4096", "bf16|fp32", "INT,... 1..65536".
  std::string flag_value_name() const;
};

// A flag that takes no value sets the key to a fixed one: --in-place sets sweep.in_place true, --no-check
// sets sweep.check false.
enum class FlagKind { value, sets_true, sets_false };
// Where --help lists a flag: with the others, under "Testing", or nowhere (test hooks).
enum class FlagListing { listed, testing, hidden };

struct ConfigKey {
  const char* section;  // "model", "routing", "sweep", "transport", "serve", "output"
  const char* name;     // "hidden_size"
  ValueSpec value;
  std::string meaning;  // one line: the README's key list and the flag's help
  bool required = false;
  const char* flag = nullptr;  // "--iters"; nullptr: the key is set in YAML only
  FlagKind flag_kind = FlagKind::value;
  FlagListing listing = FlagListing::listed;
  // A value flag that may also be given alone: then it means this value (--profile alone: "all").
  const char* bare_value = nullptr;
  // Reads the key's value into the config; `key` is "section.name" for YAML, the flag for the command line.
  std::function<void(const ConfigReader& in, const YAML::Node& value, const std::string& key,
                     RunConfig& config)>
      read;
  // Its value in the effective config; empty for a key that is never written (serve.api_key).
  std::function<nlohmann::json(const RunConfig& config)> write;

  std::string path() const { return std::string(section) + "." + name; }
};

// Every key, grouped by section in the order of config_sections().
std::span<const ConfigKey> config_keys();
const std::vector<std::string>& config_sections();
// The key whose flag is `flag` ("--iters"), or nullptr.
const ConfigKey* config_key_of_flag(const std::string& flag);

// The YAML value a flag's text stands for: a scalar, or for a list key a sequence of the comma-separated
// items. A switch's value is "true" or "false". Throws UsageError for an empty list item ("1,,4").
YAML::Node flag_value_node(const ConfigKey& key, const std::string& text);
// Applies one flag's text to `config` through the key's reader (a UsageError "FLAG: REASON" when it is bad).
void apply_flag(const ConfigKey& key, const std::string& text, RunConfig& config);

// The effective config as report.json records it: every written key, under the names YAML uses, so that it
// loads back (JSON is YAML) to the same run, without its secrets (common/redaction.hpp: serve.api_key is
// never written, an endpoint's user-info is "<redacted>").
nlohmann::json config_to_json(const RunConfig& config);

// The README's key list: a Markdown table of every key, its flag, its type and meaning.
std::string config_keys_markdown();

// sweep.phases / --phases: which phases run, and their names (SweepPhase's table).
void set_phases(SweepSpec& sweep, const std::vector<SweepPhase>& phases);
std::vector<std::string> phase_names(const SweepSpec& sweep);

}  // namespace k25
