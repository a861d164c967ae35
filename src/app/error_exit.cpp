// Error messages and exit decisions of the top level.
#include "app/error_exit.hpp"

#include <fmt/format.h>

#include "common/redaction.hpp"

namespace k25 {

std::string error_message(const std::exception& error, bool verbose) {
  const auto* known = dynamic_cast<const Error*>(&error);
  // k25comm's own errors are redacted when made (common/error.hpp); a library's message is redacted here.
  if (known == nullptr) return fmt::format("k25comm: internal error: {}", redact_text(error.what()));
  const std::string location = known->location();
  return fmt::format("k25comm: error: {}{}", known->what(),
                     verbose && !location.empty() ? fmt::format(" [at {}]", location) : "");
}

ErrorExit measurement_error_exit(const Error& error, bool coordinator) {
  const bool same_on_every_rank = error.code() == ExitCode::bad_usage || error.raised_on_every_rank();
  ErrorExit exit;
  exit.code = static_cast<int>(error.code());
  exit.print = !same_on_every_rank || coordinator;
  exit.abort_job = !same_on_every_rank;
  return exit;
}

}  // namespace k25
