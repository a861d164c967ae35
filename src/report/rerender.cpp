// Re-rendering of a run's report files and plots from report.json or journal.jsonl.
#include "report/rerender.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <ostream>
#include <system_error>

#include <fmt/format.h>

#include "analysis/analyze.hpp"
#include "analysis/report_reader.hpp"
#include "report/atomic_file.hpp"
#include "report/markdown_report.hpp"

namespace k25 {

namespace fs = std::filesystem;

// Exit code of tools/plot-report when matplotlib cannot be imported.
constexpr int kPlotScriptNoMatplotlib = 3;

std::string plot_python() {
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
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  // Build trees (build/k25comm, build/tests/x) and installs (prefix/bin/k25comm -> prefix/share/k25comm).
  for (fs::path dir = exe.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    for (const fs::path& candidate : {dir / "tools" / name, dir / "share" / "k25comm" / name}) {
      if (fs::is_regular_file(candidate, ec)) return candidate.string();
    }
    if (dir == dir.root_path()) break;
  }
#ifdef K25_SOURCE_DIR
  if (fs::is_regular_file(fs::path(K25_SOURCE_DIR) / "tools" / name, ec)) {
    return (fs::path(K25_SOURCE_DIR) / "tools" / name).string();
  }
#endif
  return {};
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

namespace {

// Runs the plot script on report.json; tells `out` what happened. Never throws for a missing python or
// script.
void make_plots(const std::string& report_json, const std::string& out_dir, const std::string& script_option,
                std::ostream& out) {
  const std::string script = find_plot_script(script_option);
  if (script.empty()) {
    out << "plots: not made: tools/plot-report not found (set K25_PLOT_SCRIPT)\n";
    return;
  }
  const ProcessResult plot = run_process({plot_python(), script, report_json, "--out", out_dir});
  if (plot.exit_code == 0) {
    out << plot.output;
  } else if (plot.exit_code == kPlotScriptNoMatplotlib) {
    out << "plots: not made: " << plot.output << "  (on Debian: apt-get install python3-matplotlib)\n";
  } else {
    out << fmt::format("plots: not made: {} exited with {}:\n{}", script, plot.exit_code, plot.output);
  }
}

}  // namespace

int run_report_command(const RerenderOptions& options, std::ostream& out) {
  RunReport report = read_report_file(options.input_path);
  if (!options.serve_path.empty())
    report = merge_serve_report(std::move(report), read_report_file(options.serve_path));
  analyze_report(report);

  std::string out_dir = options.out_dir;
  if (out_dir.empty()) {
    out_dir = fs::path(options.input_path).parent_path().string();
    if (out_dir.empty()) out_dir = ".";
  }
  ensure_writable_directory(out_dir);
  const std::string json_path = (fs::path(out_dir) / "report.json").string();
  const std::string md_path = (fs::path(out_dir) / "report.md").string();

  write_file_atomically(json_path, nlohmann::json(report).dump(2) + "\n");
  make_plots(json_path, out_dir, options.plot_script, out);
  write_file_atomically(md_path, render_markdown(report, existing_artifacts(out_dir)));

  out << fmt::format("wrote {} and {}{}\n", json_path, md_path,
                     report.run.complete ? "" : " (incomplete run: " + report.run.incomplete_reason + ")");
  return 0;
}

}  // namespace k25
