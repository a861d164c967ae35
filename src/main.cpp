// k25comm's entry point: parses the command line, runs one command, and turns every error into a message and
// an exit code (0 ok, 1 measurement failed or regression, 2 bad usage or config, 3 runtime fault).
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "analysis/compare.hpp"
#include "app/command_line.hpp"
#include "app/dry_run.hpp"
#include "app/error_exit.hpp"
#include "app/measure_command.hpp"
#include "app/run_facts.hpp"
#include "common/error.hpp"
#include "common/interrupt.hpp"
#include "common/rank_context.hpp"
#include "config/config_loader.hpp"
#include "gather/coordinator_step.hpp"
#include "report/rerender.hpp"
#include "serve/curl_global.hpp"
#include "transport/nccl_backend.hpp"
#ifdef K25_LINK_NCCL
#include "transport/nccl/built_nccl_backend.hpp"
#endif

namespace {

// The one place that knows whether k25nccl is linked (CMake defines K25_LINK_NCCL for this file alone).
const k25::NcclBackend& linked_nccl_backend() {
#ifdef K25_LINK_NCCL
  return k25::nccl::nccl_backend();
#else
  return k25::absent_nccl_backend();
#endif
}

// MPI_Init_thread / MPI_Finalize for the measuring command only (the others need no MPI).
// MPI_THREAD_MULTIPLE: the host transport's watchdog thread asks the peers for a sign of life and calls
// MPI_Abort while the main thread is inside a collective (transport/mpi_transport.hpp says what happens with
// a lower level).
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv) {
    int provided = 0;
    K25_MPI_CHECK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  ~MpiSession() { MPI_Finalize(); }
};

void print_error(const std::exception& e, bool verbose) {
  std::fputs((k25::error_message(e, verbose) + "\n").c_str(), stderr);  // never throws on a closed stderr
}

int run_measurement(int argc, char** argv, const k25::CommandLine& cli, const k25::RunConfig& config) {
  k25::install_interrupt_handlers();
  MpiSession mpi(argc, argv);
  k25::RankContext context(config.transport.timeout_s);
  MPI_Comm_set_errhandler(context.world(), MPI_ERRORS_RETURN);
  try {
    return k25::run_measure_command(config, cli, context, linked_nccl_backend());
  } catch (const k25::PeerFailed& e) {
    return static_cast<int>(e.code());  // the coordinator printed why
  } catch (const k25::SharedFailure& e) {
    std::fputs(fmt::format("k25comm: error: {}\n", e.what()).c_str(), stderr);  // the coordinator's message
    return static_cast<int>(e.code());
  } catch (const k25::Error& e) {
    const k25::ErrorExit exit = k25::measurement_error_exit(e, context.is_coordinator());
    if (exit.print) print_error(e, cli.verbose);
    if (!exit.abort_job) return exit.code;
    std::fflush(nullptr);
    // Peers stuck on the same collective time out within moments of each other: give them a second to print
    // their own reasons (the rank that caused it says so) before the abort ends them.
    if (exit.code == static_cast<int>(k25::ExitCode::runtime_fault))
      std::this_thread::sleep_for(std::chrono::seconds(1));
    MPI_Abort(MPI_COMM_WORLD, exit.code);  // other ranks may wait in a collective: end them all
    return exit.code;
  } catch (const std::exception& e) {
    print_error(e, cli.verbose);
    std::fflush(nullptr);
    MPI_Abort(MPI_COMM_WORLD, static_cast<int>(k25::ExitCode::runtime_fault));
    return static_cast<int>(k25::ExitCode::runtime_fault);
  }
}

// An error before MPI starts (a configuration or input problem: usually the same on every rank). Under a
// launcher, rank 0 prints it and its exit ends the job. Another rank waits first: were it to exit non-zero
// before rank 0 printed, mpirun would end the job, rank 0 with it, and the message would be lost. A rank that
// is still running after the wait failed where rank 0 did not (a file missing on its host), so it says so
// itself.
int exit_before_mpi(const std::exception& e, int code, bool printing_rank, bool verbose) {
  if (!printing_rank) std::this_thread::sleep_for(std::chrono::seconds(5));
  print_error(e, verbose);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  k25::ignore_broken_pipes();  // `k25comm ... | head`: the console stops, the run goes on
  const bool printing_rank = k25::launcher_rank() == 0;
  const k25::CommandLine cli = k25::parse_command_line(argc, argv, printing_rank);
  // The command line is the same on every rank: rank 0 prints its error (or help) and owns the exit code.
  // Another rank leaves quietly with 0, so that it cannot end an mpirun job before rank 0 has printed.
  if (cli.command == k25::Command::exit_now) return printing_rank ? cli.exit_code : 0;
  try {
    k25::CurlGlobal curl;
    if (cli.command == k25::Command::compare) return k25::run_compare(cli.compare, std::cout);
    if (cli.command == k25::Command::report) return k25::run_report_command(cli.report, std::cout);
    if (cli.command == k25::Command::capture) return k25::run_capture_command(cli.capture, std::cout);
    if (cli.command == k25::Command::predict) return k25::run_predict_command(cli.predict, std::cout);
    if (cli.command == k25::Command::history) return k25::run_history_command(cli.history, std::cout);
    if (cli.command == k25::Command::doctor)
      return k25::run_doctor_command(cli.doctor, linked_nccl_backend(), std::cout);

    k25::RunConfig config = k25::load_config(cli.config_path);
    k25::apply_command_line(cli, config);
    if (cli.command == k25::Command::dry_run) {
      if (!printing_rank) return 0;
      const int ranks =
          cli.dry_run_ranks > 0 ? cli.dry_run_ranks : (k25::launcher_size() > 0 ? k25::launcher_size() : 8);
      // plan.json goes to --out only when given on the command line: a config's output.dir is a measuring
      // run's folder.
      const std::string plan_dir =
          cli.flag_text("--out") != nullptr ? config.output.dir : k25::kDefaultPlanDir;
      return k25::run_dry_run(config, ranks, plan_dir, stdout);
    }
    return run_measurement(argc, argv, cli, config);
  } catch (const k25::Error& e) {
    return exit_before_mpi(e, static_cast<int>(e.code()), printing_rank, cli.verbose);
  } catch (const std::exception& e) {
    return exit_before_mpi(e, static_cast<int>(k25::ExitCode::runtime_fault), printing_rank, cli.verbose);
  }
}
