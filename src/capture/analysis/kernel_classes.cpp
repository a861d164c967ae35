// The kernel-class table: loading (yaml-cpp), and the first matching rule of a kernel name.
#include "capture/analysis/kernel_classes.hpp"

#include <array>
#include <regex>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "common/collective_kind_names.hpp"
#include "common/error.hpp"
#include "common/shared_files.hpp"

namespace k25 {
namespace {

// Names are matched on their first characters only: the pattern sits near the start, and std::regex's
// recursion must stay bounded on the longest template names.
constexpr std::size_t kMatchedLength = 1024;

// The text of group N of the match ("" where it did not take part).
std::string group_text(const std::cmatch& match, char digit) {
  const auto group = static_cast<std::size_t>(digit - '0');
  return group < match.size() && match[group].matched ? match[group].str() : std::string();
}

// `spec` with each "$N" replaced by group N of the match; a bracketed part "(...)" whose groups all came out
// empty is left out with the space before it ("NCCL ($3 kernel)" is "NCCL" where group 3 is empty).
std::string expand(const std::string& spec, const std::cmatch& match) {
  std::string out;
  std::size_t bracket = std::string::npos;  // where the open bracket's part starts in `out`
  bool bracket_groups = false, bracket_text = false;
  for (std::size_t i = 0; i < spec.size(); ++i) {
    const char c = spec[i];
    if (c == '$' && i + 1 < spec.size() && spec[i + 1] >= '1' && spec[i + 1] <= '9') {
      const std::string text = group_text(match, spec[++i]);
      bracket_groups = true;
      bracket_text = bracket_text || !text.empty();
      out += text;
      continue;
    }
    if (c == '(') {
      bracket = out.size();
      bracket_groups = bracket_text = false;
    }
    out += c;
    if (c == ')' && bracket != std::string::npos) {
      if (bracket_groups && !bracket_text) {
        out.resize(bracket);
        while (!out.empty() && out.back() == ' ') out.pop_back();
      }
      bracket = std::string::npos;
    }
  }
  return out;
}

// The table's backend_rules (optional).
std::vector<BackendRule> backend_rules_of(const YAML::Node& root, const std::string& path) {
  std::vector<BackendRule> rules;
  const YAML::Node list = root["backend_rules"];
  if (!list) return rules;
  if (!list.IsSequence())
    throw UsageError(fmt::format("{}: not a kernel-class table: 'backend_rules' must be a list", path));
  for (const YAML::Node& entry : list) {
    const std::string where = fmt::format("{}:{}", path, entry.Mark().line + 1);
    if (!entry.IsMap() || !entry["backend"] || !entry["rule"] || !entry["source"])
      throw UsageError(fmt::format("{}: a backend rule needs 'backend', 'rule' and 'source'", where));
    try {
      for (const auto& item : entry) {
        const std::string key = item.first.as<std::string>();
        if (key != "backend" && key != "above_ranks" && key != "rule" && key != "source")
          throw UsageError(
              fmt::format("{}: unknown key '{}' (backend, above_ranks, rule, source)", where, key));
      }
      BackendRule rule;
      rule.backend = entry["backend"].as<std::string>();
      if (entry["above_ranks"]) rule.above_ranks = entry["above_ranks"].as<int>();
      rule.rule = entry["rule"].as<std::string>();
      rule.source = entry["source"].as<std::string>();
      rules.push_back(std::move(rule));
    } catch (const YAML::Exception& e) {
      throw UsageError(fmt::format("{}: {}", where, e.msg));
    }
  }
  return rules;
}

}  // namespace

std::string shipped_kernel_class_table() {
  return first_existing_file(shared_file_lookup("data/kernel-classes.yaml")).string();
}

std::string c10d_collective_kind(std::string_view collective) {
  const auto has = [&](std::string_view part) { return collective.find(part) != std::string_view::npos; };
  // Most specific first: "reduce_scatter" holds "scatter", "allgather" holds "gather".
  static const std::array<std::pair<std::array<std::string_view, 2>, std::string_view>, 10> kKinds = {{
      {{"allreduce", "all_reduce"}, "allreduce"},
      {{"reduce_scatter", "reducescatter"}, "reducescatter"},
      {{"allgather", "all_gather"}, "allgather"},
      {{"alltoall", "all_to_all"}, "alltoall"},
      {{"broadcast", "broadcast"}, "broadcast"},
      {{"send", "recv"}, "sendrecv"},
      {{"reduce", "reduce"}, "reduce"},
      {{"gather", "gather"}, "gather"},
      {{"scatter", "scatter"}, "scatter"},
      {{"barrier", "barrier"}, "barrier"},
  }};
  for (const auto& [parts, letters] : kKinds)
    if (has(parts[0]) || has(parts[1])) return std::string(recorded_name_of_letters(letters));
  return "";
}

bool kind_says_nothing(std::string_view kind) {
  return kind.empty() || kind == "Generic" || kind == "NCCL" || kind == "unknown";
}

// Rule is Impl's own (not in the anonymous namespace): Impl has external linkage.
struct KernelClassifier::Impl {
  struct Rule {
    std::regex pattern;
    KernelClass cls = KernelClass::unclassified;
    std::string kind, dtype, backend;  // literal, or with "$N"
  };
  std::vector<Rule> rules;
  std::vector<std::string> tables;
  std::vector<BackendRule> backend_rules;
};

KernelClassifier::KernelClassifier(const std::vector<std::string>& tables) : impl_(std::make_unique<Impl>()) {
  for (const std::string& path : tables) {
    YAML::Node root;
    try {
      root = YAML::LoadFile(path);
    } catch (const YAML::BadFile&) {
      throw UsageError(fmt::format("{}: cannot read the kernel-class table", path));
    } catch (const YAML::Exception& e) {
      throw UsageError(fmt::format("{}:{}: not a kernel-class table: {}", path, e.mark.line + 1, e.msg));
    }
    const YAML::Node rules = root.IsMap() ? root["rules"] : YAML::Node();
    if (!rules || !rules.IsSequence())
      throw UsageError(fmt::format("{}: not a kernel-class table: a top-level 'rules' list expected", path));
    for (const YAML::Node& entry : rules) {
      const std::string where = fmt::format("{}:{}", path, entry.Mark().line + 1);
      if (!entry.IsMap() || !entry["match"] || !entry["class"])
        throw UsageError(fmt::format("{}: a rule needs 'match' and 'class'", where));
      Impl::Rule rule;
      try {
        for (const auto& item : entry) {
          const std::string key = item.first.as<std::string>();
          if (key != "match" && key != "class" && key != "kind" && key != "dtype" && key != "backend" &&
              key != "ignore_case")
            throw UsageError(fmt::format(
                "{}: unknown key '{}' (match, class, kind, dtype, backend, ignore_case)", where, key));
        }
        const std::string cls = entry["class"].as<std::string>();
        const auto info = std::find_if(kKernelClasses.begin(), kKernelClasses.end(),
                                       [&](const KernelClassInfo& c) { return cls == c.key; });
        if (info == kKernelClasses.end() || info->id == KernelClass::unclassified) {
          std::string known;
          for (const KernelClassInfo& c : kKernelClasses)
            if (c.id != KernelClass::unclassified)
              known += fmt::format("{}{}", known.empty() ? "" : ", ", c.key);
          throw UsageError(fmt::format("{}: unknown class '{}' ({})", where, cls, known));
        }
        rule.cls = info->id;
        if (entry["kind"]) rule.kind = entry["kind"].as<std::string>();
        if (entry["dtype"]) rule.dtype = entry["dtype"].as<std::string>();
        if (entry["backend"]) rule.backend = entry["backend"].as<std::string>();
        auto flags = std::regex::ECMAScript | std::regex::optimize;
        if (entry["ignore_case"] && entry["ignore_case"].as<bool>()) flags |= std::regex::icase;
        rule.pattern = std::regex(entry["match"].as<std::string>(), flags);
      } catch (const std::regex_error& e) {
        throw UsageError(fmt::format("{}: bad pattern: {}", where, e.what()));
      } catch (const YAML::Exception& e) {
        throw UsageError(fmt::format("{}: {}", where, e.msg));
      }
      impl_->rules.push_back(std::move(rule));
    }
    for (BackendRule& rule : backend_rules_of(root, path)) impl_->backend_rules.push_back(std::move(rule));
    impl_->tables.push_back(path);
  }
}

KernelClassifier::~KernelClassifier() = default;
KernelClassifier::KernelClassifier(KernelClassifier&&) noexcept = default;
KernelClassifier& KernelClassifier::operator=(KernelClassifier&&) noexcept = default;

KernelClassification KernelClassifier::classify(std::string_view kernel_name) const {
  const std::string_view text = kernel_name.substr(0, kMatchedLength);
  std::cmatch match;
  for (const Impl::Rule& rule : impl_->rules) {
    if (!std::regex_search(text.data(), text.data() + text.size(), match, rule.pattern)) continue;
    return {rule.cls, expand(rule.kind, match), expand(rule.dtype, match), expand(rule.backend, match)};
  }
  return {};
}

const std::vector<std::string>& KernelClassifier::tables() const {
  return impl_->tables;
}

std::size_t KernelClassifier::rules() const {
  return impl_->rules.size();
}

const std::vector<BackendRule>& KernelClassifier::backend_rules() const {
  return impl_->backend_rules;
}

}  // namespace k25
