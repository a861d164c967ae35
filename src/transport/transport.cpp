// Defaults of the transport interface: graph capture and replay are refused where a transport lacks them.
#include "transport/transport.hpp"

#include "common/error.hpp"

namespace k25 {

std::unique_ptr<CapturedBurst> Transport::capture(const PhasePlan&) {
  throw UsageError("the " + name() + " transport has no graph mode");
}

void Transport::replay(CapturedBurst&) {
  throw UsageError("the " + name() + " transport has no graph mode");
}

}  // namespace k25
