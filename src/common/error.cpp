// Builds the one-line messages of k25comm's exceptions (without secrets) and fills in rank and host where MPI
// runs.
#include "common/error.hpp"

#include <mpi.h>
#include <unistd.h>

#include <array>

#include <fmt/format.h>

#include "common/redaction.hpp"

namespace k25 {
namespace {

int world_rank_or_minus_one() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) return -1;
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

std::string host_name() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "unknown";
  return name.data();
}

std::string full_message(const std::string& message, const std::string& call, int rank,
                         const std::string& host) {
  const std::string call_part = call.empty() ? "" : fmt::format(" [call: {}]", call);
  const std::string rank_part = rank < 0 ? "" : fmt::format(" [rank {} on {}]", rank, host);
  return fmt::format("{}{}{}", message, call_part, rank_part);
}

}  // namespace

// Every message passes through redact_text: an error that quotes a URL, a command line or a server's answer
// (an unreachable endpoint, a bad flag) never prints or records a secret in it.
Error::Error(ExitCode code, const std::string& message, std::string failed_call, const char* file, int line)
    : std::runtime_error(full_message(redact_text(message), redact_text(failed_call),
                                      world_rank_or_minus_one(), host_name())),
      code_(code),
      message_(redact_text(message)),
      failed_call_(redact_text(failed_call)),
      file_(file != nullptr ? file : ""),
      line_(line),
      rank_(world_rank_or_minus_one()),
      host_(host_name()) {}

std::string Error::location() const {
  return file_.empty() ? std::string() : fmt::format("{}:{}", file_, line_);
}

ConfigError::ConfigError(const std::string& config_file, int config_line, const std::string& key,
                         const std::string& message)
    : Error(ExitCode::bad_usage, config_line > 0
                                     ? fmt::format("{}:{}: {}: {}", config_file, config_line, key, message)
                                     : fmt::format("{}: {}: {}", config_file, key, message)),
      config_file_(config_file),
      config_line_(config_line),
      key_(key) {}

void throw_mpi_error(int rc, const char* call, const char* file, int line) {
  std::array<char, MPI_MAX_ERROR_STRING> text{};
  int length = 0;
  if (MPI_Error_string(rc, text.data(), &length) != MPI_SUCCESS) length = 0;
  throw RuntimeFault(
      fmt::format("MPI error {}: {}", rc, std::string(text.data(), static_cast<size_t>(length))), call, file,
      line);
}

}  // namespace k25
