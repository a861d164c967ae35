// SIGINT/SIGTERM handling (the handler only records the request; loops poll it at op boundaries), and SIGPIPE
// ignored.
#pragma once

#include <string>

namespace k25 {

// Installs handlers for SIGINT and SIGTERM that record the signal (async-signal-safe, nothing else).
void install_interrupt_handlers();
// Ignores SIGPIPE: console output read by a program that exits early (`k25comm ... | head`) then fails with
// EPIPE instead of killing k25comm, so the run goes on and writes its files (console writes are a
// convenience, never a reason to lose a measurement).
void ignore_broken_pipes();
// The signal number received, or 0.
int interrupt_signal();
// Test hook and for the coordinator's own stop decisions: records `signal_number` as if it had arrived.
void request_interrupt(int signal_number);

// Why the run stopped, in the user's words: "interrupted by Ctrl-C (SIGINT)"; for SIGTERM "interrupted by
// SIGTERM: Ctrl-C under mpirun (which passes it on as SIGTERM), a kill, or the batch system".
std::string interruption_reason(int signal_number);

}  // namespace k25
