// Exceptions of k25comm: each carries the exit code it maps to, the failed call, source file and line, rank
// and host.
#pragma once

#include <stdexcept>
#include <string>

namespace k25 {

// Exit codes are a contract with users' CI (see README "Exit codes").
enum class ExitCode : int {
  ok = 0,
  measurement_failed = 1,  // wrong results, regression found
  bad_usage = 2,           // bad command line or bad config
  runtime_fault = 3,       // a peer died, a collective timed out, the endpoint is unreachable
  interrupted = 130,       // SIGINT/SIGTERM: partial results written, marked incomplete
};

// Base of every error k25comm throws. `what()` is the one-line message with the failed call and the rank;
// the source location (`location()`) is left out of it: users see it with --verbose only. The message and the
// failed call are kept without secrets (common/redaction.hpp: a URL's user-info, an --api-key value).
class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& message, std::string failed_call = {}, const char* file = nullptr,
        int line = 0);

  ExitCode code() const noexcept { return code_; }
  const std::string& message() const noexcept { return message_; }
  const std::string& failed_call() const noexcept { return failed_call_; }
  const std::string& file() const noexcept { return file_; }
  int line() const noexcept { return line_; }
  int rank() const noexcept { return rank_; }  // -1 where MPI was not running
  const std::string& host() const noexcept { return host_; }
  // "file:line" where the error was raised; empty when not recorded.
  std::string location() const;

  // True when every rank raised this same error at the same point (e.g. a fact all ranks agreed on with a
  // collective): the top level then lets rank 0 alone print it and ends every rank with MPI_Finalize and the
  // error's exit code, instead of MPI_Abort and one message per rank. Set with on_every_rank().
  bool raised_on_every_rank() const noexcept { return on_every_rank_; }
  void mark_raised_on_every_rank() noexcept { on_every_rank_ = true; }

 private:
  ExitCode code_;
  std::string message_, failed_call_, file_;
  int line_ = 0;
  int rank_ = -1;
  std::string host_;
  bool on_every_rank_ = false;
};

// Marks an error as raised identically on every rank: `throw on_every_rank(RuntimeFault("..."));` keeps the
// error's type (and so its exit code) and lets the top level end the job quietly (see Error).
template <typename E>
E on_every_rank(E error) {
  error.mark_raised_on_every_rank();
  return error;
}

// Bad command line (exit 2).
class UsageError : public Error {
 public:
  explicit UsageError(const std::string& message) : Error(ExitCode::bad_usage, message) {}
};

// Bad config: names the config file, its line (1-based; 0 when unknown) and the key path (exit 2).
class ConfigError : public Error {
 public:
  ConfigError(const std::string& config_file, int config_line, const std::string& key,
              const std::string& message);
  const std::string& config_file() const noexcept { return config_file_; }
  int config_line() const noexcept { return config_line_; }
  const std::string& key() const noexcept { return key_; }

 private:
  std::string config_file_;
  int config_line_;
  std::string key_;
};

// A fault at run time: a failed MPI/CUDA/NCCL/OS call, a timeout, an unreachable endpoint (exit 3).
class RuntimeFault : public Error {
 public:
  RuntimeFault(const std::string& message, std::string failed_call = {}, const char* file = nullptr,
               int line = 0)
      : Error(ExitCode::runtime_fault, message, std::move(failed_call), file, line) {}
};

// Wrong results or a regression (exit 1).
class MeasurementFailure : public Error {
 public:
  explicit MeasurementFailure(const std::string& message) : Error(ExitCode::measurement_failed, message) {}
};

// Throws RuntimeFault with the call text, file and line when an MPI call does not return MPI_SUCCESS.
void throw_mpi_error(int rc, const char* call, const char* file, int line);

}  // namespace k25

#define K25_MPI_CHECK(call)                                                               \
  do {                                                                                    \
    const int k25_mpi_rc_ = (call);                                                       \
    if (k25_mpi_rc_ != 0) ::k25::throw_mpi_error(k25_mpi_rc_, #call, __FILE__, __LINE__); \
  } while (0)
