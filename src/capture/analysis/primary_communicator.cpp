// The communicator the attribution, the replay comparison and --emit-config read, and its label.
#include "capture/analysis/primary_communicator.hpp"

namespace k25 {

const CommunicatorResult* primary_communicator(const CaptureResult& capture) {
  const CommunicatorResult* best = nullptr;
  for (const CommunicatorResult& c : capture.communicators)
    if (c.step.decode_steps > 0 && (!best || c.step.decode_steps > best->step.decode_steps)) best = &c;
  return best;
}

std::string comm_label(const CommunicatorResult& c) {
  return c.name.empty() || c.name == "unknown" ? c.id : c.name;
}

}  // namespace k25
