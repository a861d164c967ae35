// Defaults of the transport interface: graph capture, replay and stream holds are refused where a transport
// lacks them.
#include "transport/transport.hpp"

#include "common/error.hpp"

namespace k25 {

std::unique_ptr<CapturedBurst> Transport::capture(const PhasePlan&) {
  throw UsageError("the " + name() + " transport has no graph mode");
}

void Transport::replay(CapturedBurst&) {
  throw UsageError("the " + name() + " transport has no graph mode");
}

void Transport::hold_stream() {
  throw UsageError("the " + name() + " transport has no device-only timing (no GPU stream to hold)");
}

void Transport::release_stream() {
  throw UsageError("the " + name() + " transport has no device-only timing (no GPU stream to hold)");
}

}  // namespace k25
