// What a transport needs from the run's configuration, and nothing more.
#pragma once

#include "common/vocabulary.hpp"

namespace k25 {

struct TransportOptions {
  bool in_place = false;       // collectives read and write one buffer (NCCL's in-place forms)
  double timeout_s = 60.0;     // the watchdog's bound on any one wait
  bool emulate_ranks = false;  // nccl, test mode: several ranks per GPU, each presented as a host of its own
  NcclRegister nccl_register = NcclRegister::none;  // nccl: how the send and receive buffers are registered
};

}  // namespace k25
