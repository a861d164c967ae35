// Finding and running the plot script.
#include "report/plot_script.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <ostream>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

#include "common/shared_files.hpp"

namespace k25 {

namespace fs = std::filesystem;

namespace {
constexpr const char* kWrotePrefix = "plots: wrote ";
}  // namespace

std::string plot_python() {
  if (const char* chosen = std::getenv("K25_PYTHON"); chosen && *chosen) return chosen;
  std::error_code ec;
  if (fs::exists("/usr/bin/python3", ec)) return "/usr/bin/python3";
  return "python3";
}

std::string find_plot_script(const std::string& explicit_path) {
  return find_tool_script(explicit_path, "plot-report", "K25_PLOT_SCRIPT");
}

std::string find_tool_script(const std::string& explicit_path, const std::string& name, const char* env_var) {
  if (!explicit_path.empty()) return explicit_path;
  if (const char* from_env = std::getenv(env_var); from_env && *from_env) return from_env;
  return first_existing_file(shared_file_candidates(fs::path("tools") / name)).string();
}

ProcessResult run_process(const std::vector<std::string>& argv) {
  ProcessResult result;
  if (argv.empty()) return result;
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return result;
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return result;
  }
  if (pid == 0) {
    ::dup2(pipe_fds[1], STDOUT_FILENO);
    ::dup2(pipe_fds[1], STDERR_FILENO);
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    const std::string message = fmt::format("cannot run {}\n", argv[0]);
    [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, message.data(), message.size());
    ::_exit(127);
  }
  ::close(pipe_fds[1]);
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
    if (n > 0) {
      result.output.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

PlotOutcome make_plots(const std::string& report_json, const std::string& out_dir,
                       const std::string& script_option) {
  PlotOutcome outcome;
  const std::string script = find_plot_script(script_option);
  if (script.empty()) {
    outcome.message = "plots: not made: tools/plot-report not found (set K25_PLOT_SCRIPT)\n";
    return outcome;
  }
  const ProcessResult plot = run_process({plot_python(), script, report_json, "--out", out_dir});
  if (plot.exit_code == kPlotScriptNoMatplotlib) {
    outcome.message =
        "plots: not made: " + plot.output +
        "  (on Debian: apt-get install python3-matplotlib; or set K25_PYTHON to a python with matplotlib)\n";
    return outcome;
  }
  if (plot.exit_code != 0) {
    outcome.message =
        fmt::format("plots: not made: {} exited with {}:\n{}", script, plot.exit_code, plot.output);
    return outcome;
  }
  std::istringstream lines(plot.output);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(kWrotePrefix, 0) == 0) {
      outcome.written.push_back(line.substr(std::string(kWrotePrefix).size()));
    } else if (!line.empty()) {
      outcome.message += line + "\n";
    }
  }
  return outcome;
}

void run_tool_plot(const std::string& name, const char* env_var, const std::string& json_path,
                   const std::string& out_dir, std::ostream& out) {
  const std::string script = find_tool_script("", name, env_var);
  if (script.empty()) {
    out << fmt::format("plots: not made: tools/{} not found (set {})\n", name, env_var);
    return;
  }
  const ProcessResult plot = run_process({plot_python(), script, json_path, "--out", out_dir});
  if (plot.exit_code == kPlotScriptNoMatplotlib)
    out << "plots: not made: " << plot.output << "  (on Debian: apt-get install python3-matplotlib)\n";
  else if (plot.exit_code != 0)
    out << fmt::format("plots: not made: {} exited with {}:\n{}", script, plot.exit_code, plot.output);
  else
    out << plot.output;
}

}  // namespace k25
