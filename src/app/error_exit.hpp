// How the top level ends after an error: the message a user sees, which rank prints it, and whether the job
// must be torn down with MPI_Abort.
#pragma once

#include <exception>
#include <string>

#include "common/error.hpp"

namespace k25 {

// "k25comm: error: MESSAGE"; with `verbose` the source location follows ("[at file:line]"). An exception that
// is not a k25comm error is a bug or an unexpected library failure: "k25comm: internal error: ...".
std::string error_message(const std::exception& error, bool verbose);

struct ErrorExit {
  bool print = true;       // this rank prints the message
  bool abort_job = false;  // other ranks may wait in a collective: end them all with MPI_Abort
  int code = 0;            // exit code
};

// During a measurement (MPI running). An error raised identically on every rank (bad usage, or one marked
// with on_every_rank) is printed by the coordinator alone and every rank ends with MPI_Finalize; any other
// error is printed where it happened and aborts the job.
ErrorExit measurement_error_exit(const Error& error, bool coordinator);

}  // namespace k25
