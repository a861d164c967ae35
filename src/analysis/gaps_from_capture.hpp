// --gaps-from capture.json: the decode mode's shape from a multi-rank capture (what `k25comm capture` wrote,
// read as a document): per collective kind and step batch of the trace's join, the compute before each op
// and each rank's arrival behind the earliest, so that a replay on another node runs this server's own step.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/capture_document.hpp"
#include "config/run_config.hpp"

namespace k25 {

// The shapes of the capture's step groups (its decode steps, else its steps of unknown phase): per join group
// of a kind the replay runs (AllReduce, AllGather, ReduceScatter, All-to-All), gap = (wall p50 - merged
// communication p50) / ops per step - the ranks' mean arrival p50 (at least 0), and the arrivals per rank.
// Throws UsageError naming `path` where the capture has no such group joined across two or more ranks, or was
// written before the join carried the ranks' arrivals.
std::vector<CapturedShape> shapes_from_capture(const CaptureResult& capture, const std::string& path);
// The same of capture.json's text as parsed (read_capture_document: UsageError where it is no capture.json).
std::vector<CapturedShape> shapes_from_capture(const nlohmann::json& doc, const std::string& path);

// One line for the report's notes and the console: what the shapes are and where they came from.
std::string describe_shapes(const std::vector<CapturedShape>& shapes, const std::string& path);

}  // namespace k25
