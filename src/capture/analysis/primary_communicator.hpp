// Which captured communicator stands for the decode step (the one with the most decode steps), and how the
// capture's outputs name a communicator.
#pragma once

#include <string>

#include "analysis/capture_document.hpp"

namespace k25 {

// The communicator with the most decode steps (the first of equals), or nullptr where none has one.
const CommunicatorResult* primary_communicator(const CaptureResult& capture);

// Its name, else (unnamed: empty or the Inspector's "unknown") its id.
std::string comm_label(const CommunicatorResult& c);

}  // namespace k25
