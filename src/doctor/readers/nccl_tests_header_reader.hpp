// The header nccl-tests prints before its results: "# nThread 1 nGpus 2 ...", "# Using devices" and one line
// per rank, "#  Rank  0 Group  0 Pid   4766 on   GENOA-06 device  0 [0x21] NVIDIA GeForce RTX 5090" (the bus
// as "0x21" in older versions, "0000:21:00" in later ones; "Group" missing before 2.13), and the NCCL it was
// run with where it says so ("nccl-library=22807").
#pragma once

#include <string>
#include <vector>

#include "doctor/readers/pasted_text.hpp"

namespace k25 {

struct NcclTestsDevice {
  int rank = -1;
  int pid = -1;
  std::string host;
  int cuda_index = -1;  // "device N": the CUDA device of that rank's process
  std::string bus_id;   // "0000:21:00.0"; empty where the bracket was not a bus
  std::string name;     // "NVIDIA GeForce RTX 5090"
  FactSource source;
};

struct NcclTestsHeader {
  std::vector<NcclTestsDevice> devices;
  std::string nccl_version;  // "2.28.7", from "nccl-library=22807"; empty where not said
  FactSource version_source;
};

// Whether `text` holds nccl-tests' rank lines.
bool has_nccl_tests_header(const PastedText& text);

NcclTestsHeader read_nccl_tests_header(const PastedText& text);

// An NCCL version code (22807) as "2.28.7"; empty for anything that is none.
std::string nccl_version_of_code(int code);

}  // namespace k25
