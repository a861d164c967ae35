// Runs a piece of work on the coordinator alone and makes every rank share its outcome, so a failure there
// (unwritable output, unreachable endpoint) ends all ranks with the same exit code instead of leaving them
// waiting.
#pragma once

#include <exception>
#include <functional>
#include <string>

#include "common/error.hpp"
#include "common/rank_context.hpp"

namespace k25 {

// Thrown on the other ranks when the coordinator's work failed: they exit with `code()` without printing
// (the coordinator prints the reason).
class PeerFailed : public Error {
 public:
  explicit PeerFailed(ExitCode code) : Error(code, "the coordinator reported a failure") {}
};

// Thrown on the coordinator when its work failed and every rank was told: the run can end with MPI_Finalize.
class SharedFailure : public std::exception {
 public:
  SharedFailure(ExitCode code, std::string text) : code_(code), text_(std::move(text)) {}
  ExitCode code() const noexcept { return code_; }
  const char* what() const noexcept override { return text_.c_str(); }

 private:
  ExitCode code_;
  std::string text_;
};

// Collective. Other ranks wait without spinning (non-blocking broadcast polled with sleeps). On the
// coordinator the work's failure becomes SharedFailure (with the original message); on the others PeerFailed
// carries its exit code.
void run_on_coordinator(const RankContext& context, const std::function<void()>& work);

}  // namespace k25
