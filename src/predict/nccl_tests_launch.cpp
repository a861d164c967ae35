// The rank count of a pasted nccl-tests run from its launch, its settings line and its rank lines.
#include "predict/nccl_tests_launch.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "common/count_noun.hpp"
#include "predict/kind_names.hpp"

namespace k25 {
namespace {

// A count as a paste writes it ("16"); empty for anything else.
std::optional<int> count_word(const std::string& word) {
  const std::optional<double> value = parse_number(word);
  if (!value || *value < 1 || *value > kMaxRankCount || *value != static_cast<int>(*value))
    return std::nullopt;
  return static_cast<int>(*value);
}

std::string base_name(const std::string& word) {
  const std::size_t slash = word.rfind('/');
  return slash == std::string::npos ? word : word.substr(slash + 1);
}

bool is_launcher(const std::string& word) {
  const std::string name = base_name(word);
  return name == "mpirun" || name == "mpiexec" || name == "orterun" || name == "srun";
}

bool is_perf_program(const std::string& word) {
  const std::string name = base_name(word);
  return name.size() > 5 && name.compare(name.size() - 5, 5, "_perf") == 0;
}

// "a:8,b:8" (mpirun's -H): the hosts it names.
int host_list_count(const std::string& list) {
  std::set<std::string> hosts;
  std::istringstream in(list);
  for (std::string host; std::getline(in, host, ',');)
    if (!host.empty()) hosts.insert(host.substr(0, host.find(':')));
  return static_cast<int>(hosts.size());
}

// The options of a launcher's command line after `at` (the launcher's word) up to the program: -n, -np,
// --np, -c (Open MPI's synonym), --ntasks (srun), -N with --ntasks-per-node (srun), -H/--host (hosts).
std::optional<LaunchFact> launcher_fact(const std::vector<std::string>& words, std::size_t at, int number) {
  const std::string launcher = base_name(words[at]);
  LaunchFact fact;
  int nodes = 0, per_node = 0;
  std::string said;
  for (std::size_t i = at + 1; i < words.size() && !is_perf_program(words[i]); ++i) {
    std::string option = words[i], value;
    if (const std::size_t equals = option.find('=');
        option.rfind("-", 0) == 0 && equals != std::string::npos) {
      value = option.substr(equals + 1);
      option.erase(equals);
    } else if (i + 1 < words.size()) {
      value = words[i + 1];
    }
    const std::optional<int> count = count_word(value);
    const bool srun = launcher == "srun";
    if ((option == "-n" || option == "-np" || option == "--np" || option == "--n" || option == "--ntasks" ||
         (option == "-c" && !srun)) &&
        count) {
      fact.processes = *count;
      said = fmt::format("{} {} {}", launcher, option, *count);
    } else if (srun && (option == "-N" || option == "--nodes") && count) {
      nodes = *count;
    } else if (srun && option == "--ntasks-per-node" && count) {
      per_node = *count;
    } else if (option == "-H" || option == "--host" || option == "-host") {
      fact.hosts = host_list_count(value);
    }
  }
  if (nodes > 0) fact.hosts = nodes;
  if (fact.processes == 0 && nodes > 0 && per_node > 0) {
    fact.processes = nodes * per_node;
    said = fmt::format("{} -N {} --ntasks-per-node {}", launcher, nodes, per_node);
  }
  if (fact.processes == 0 && fact.hosts == 0) return std::nullopt;
  fact.source = fmt::format("{} at line {}", said.empty() ? launcher : said, number);
  return fact;
}

std::string lower_case(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// SLURM_NTASKS=8 (SLURM_NPROCS, WORLD_SIZE), SLURM_NNODES=2, "world size 4" / "world_size: 4".
std::optional<LaunchFact> environment_fact(const std::vector<std::string>& words, int number) {
  LaunchFact fact;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    const std::size_t equals = word.find('=');
    const std::string name = word.substr(0, equals);
    const std::optional<int> count =
        equals == std::string::npos ? std::nullopt : count_word(word.substr(equals + 1));
    if (count && (name == "SLURM_NTASKS" || name == "SLURM_NPROCS" || name == "WORLD_SIZE")) {
      fact.processes = *count;
      fact.source = fmt::format("{} at line {}", word, number);
    } else if (count && name == "SLURM_NNODES") {
      fact.hosts = *count;
    }
    const std::string lower = lower_case(word);
    const bool world =
        (lower == "world" && i + 1 < words.size() && lower_case(words[i + 1]).rfind("size", 0) == 0);
    if (fact.processes == 0 && (world || lower.rfind("world_size", 0) == 0)) {
      const std::size_t from = world ? i + 1 : i;
      for (std::size_t j = from; j < words.size() && j <= from + 2; ++j) {
        std::string value = words[j];
        if (const std::size_t cut = value.find_first_of(":="); cut != std::string::npos)
          value.erase(0, cut + 1);
        if (const std::optional<int> size = count_word(value)) {
          fact.processes = *size;
          fact.source = fmt::format("the world size {} at line {}", *size, number);
          break;
        }
      }
    }
  }
  if (fact.processes == 0 && fact.hosts == 0) return std::nullopt;
  return fact;
}

std::string settings_words(const RunRankLines& run) {
  return run.threads > 0 ? fmt::format("nThread {} nGpus {}", run.threads, run.gpus)
                         : std::string("no nThread line: one thread of one GPU taken");
}

// a x b x c, at most kMaxRankCount (no run has more ranks; a fuzzed or garbled line may say so).
int product(long long a, long long b, long long c = 1) {
  return static_cast<int>(std::min<long long>(a * b * c, kMaxRankCount));
}

}  // namespace

std::optional<LaunchFact> launch_fact(const std::string& line, int number) {
  if (line.empty() || line[0] == '#' || line.find("Collective test") != std::string::npos)
    return std::nullopt;
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  for (std::size_t i = 0; i < words.size(); ++i)
    if (is_launcher(words[i])) return launcher_fact(words, i, number);
  for (const std::string& word : words)
    if (is_perf_program(word)) {
      LaunchFact fact;
      fact.processes = 1;
      fact.one_process_command = true;
      fact.source = fmt::format("the command at line {} runs {} without a launcher", number, base_name(word));
      return fact;
    }
  return environment_fact(words, number);
}

RankCount said_rank_count(const RunRankLines& run) {
  RankCount count;
  const int per_process = run.threads > 0 ? product(run.threads, std::max(run.gpus, 1)) : 0;
  const int highest = run.rank_numbers.empty() ? 0 : *run.rank_numbers.rbegin() + 1;
  count.hosts =
      run.launch && run.launch->hosts > 0 ? run.launch->hosts : static_cast<int>(run.hostnames.size());
  if (run.launch && run.launch->processes > 0) {
    const int threads = std::max(run.threads, 1), gpus = std::max(run.gpus, 1);
    count.ranks = product(run.launch->processes, threads, gpus);
    count.source = fmt::format("{} = {} x {} x {} ({}; {}{})", count.ranks,
                               count_noun(run.launch->processes, "process", "processes"),
                               count_noun(threads, "thread"), count_noun(gpus, "GPU"), settings_words(run),
                               run.launch->one_process_command ? "one process: " : "the processes from ",
                               run.launch->source);
    if (highest > count.ranks) {
      count.source +=
          fmt::format("; but its '#  Rank' lines name rank {}: their {} taken", highest - 1, highest);
      count.ranks = highest;
    }
  } else if (highest > per_process) {
    count.ranks = highest;
    count.source =
        fmt::format("{}, from the '#  Rank' lines (ranks {} .. {}; the output says no process count)",
                    highest, *run.rank_numbers.begin(), highest - 1);
  } else if (per_process > 0) {
    count.ranks = per_process;
    count.source = fmt::format(
        "{} = nThread {} x nGpus {} of one process (the output says no process count: more processes would be more ranks)",
        per_process, run.threads, run.gpus);
  } else {
    count.source = "not said";
  }
  return count;
}

}  // namespace k25
