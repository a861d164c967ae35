// doctor's door: every input read through the families' table, whether this machine's sysfs belongs to the
// node decided, the node model built, the P2P copies measured where the GPUs are this host's, and the
// verdicts and headline derived; and the reading of the documents `doctor --compare` takes. The command
// (app/) only turns flags into options and writes what this returns.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "doctor/model/doctor_document.hpp"
#include "transport/nccl_backend.hpp"

namespace k25 {

struct DoctorRunOptions {
  std::string root = "/";         // --root: where sys/ and proc/ are read
  bool root_given = false;        // --root was given: read it whatever the inputs' host
  std::string host;               // --host: the node's name (default: the inputs', else this host's)
  std::string this_host;          // this machine's name
  std::vector<std::string> from;  // --from: pasted files and folders, each file's formats told by content
  std::vector<std::string> nccl_logs;  // --nccl-log: files or folders read as NCCL INFO logs
  std::string nccl_topo;               // --nccl-topo: a file read as NCCL's topology dump
  std::string capture;                 // --capture: capture.json whose trace.backends say what ran
  bool measure = true;                 // P2P copies where the GPUs are this host's
  bool use_nvml = true;
};

// Reads every input before anything is written. Throws UsageError (exit 2) for an input that is missing or
// unreadable, or a --nccl-topo that holds no NCCL topology dump; a --from file of no family is listed as left
// out, never fatal.
DoctorDocument run_doctor(const DoctorRunOptions& options, const NcclBackend& nccl);

// Sets verdicts (the node's and the backends' notes) and headline from the model and backends.
void derive_verdicts(DoctorDocument& document);

// doctor.json, report.json (its topology.nodes, first host; or its topology.gpus where an older report has no
// nodes) or capture.json (backends only), told apart by their members. Throws UsageError "FILE: why" for JSON
// that is none of them or has fields of the wrong type.
DoctorDocument doctor_input_from_json(const nlohmann::json& json, const std::string& file);
// What a --compare side names: a file, or the first of doctor.json, report.json, capture.json in a folder.
DoctorDocument read_compare_side(const std::string& path);

}  // namespace k25
