// SIGINT/SIGTERM handling: the handler only records the request; loops poll it at op boundaries.
#pragma once

namespace k25 {

// Installs handlers for SIGINT and SIGTERM that record the signal (async-signal-safe, nothing else).
void install_interrupt_handlers();
// The signal number received, or 0.
int interrupt_signal();
// Test hook and for the coordinator's own stop decisions: records `signal_number` as if it had arrived.
void request_interrupt(int signal_number);

}  // namespace k25
