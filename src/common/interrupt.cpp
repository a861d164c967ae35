// The one process-wide flag k25comm keeps: which signal asked it to stop (a signal handler can set nothing
// else).
#include "common/interrupt.hpp"

#include <csignal>

namespace k25 {
namespace {
volatile std::sig_atomic_t received_signal = 0;  // written only by the handler or request_interrupt

extern "C" void record_signal(int signal_number) {
  received_signal = signal_number;
}
}  // namespace

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = record_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: blocking waits return early
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

void ignore_broken_pipes() {
  struct sigaction action {};
  action.sa_handler = SIG_IGN;
  sigemptyset(&action.sa_mask);
  sigaction(SIGPIPE, &action, nullptr);
}

int interrupt_signal() {
  return static_cast<int>(received_signal);
}

void request_interrupt(int signal_number) {
  received_signal = signal_number;
}

std::string interruption_reason(int signal_number) {
  switch (signal_number) {
    case SIGINT:
      return "interrupted by Ctrl-C (SIGINT)";
    case SIGTERM:
      return "interrupted by SIGTERM: Ctrl-C under mpirun (which passes it on as SIGTERM), a kill, or the batch system";
    default:
      return "interrupted by signal " + std::to_string(signal_number);
  }
}

}  // namespace k25
