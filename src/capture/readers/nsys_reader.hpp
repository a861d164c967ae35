// Reads Nsight Systems SQLite exports (`nsys export --type sqlite`) through SQLite: kernels with their names
// from StringIds, copies and sets, per device of each process (several processes in one file), the runtime
// calls that launched them, the engine's step marks and NCCL's ranges from NVTX. Tables and columns are
// looked up in sqlite_master and table_info, since exports differ between nsys versions.
#pragma once

#include <string>

#include "capture/model/trace_model.hpp"

namespace k25 {

// Throws UsageError naming the file for a SQLite database that is not an nsys export, a corrupt one, or an
// export without GPU events. An export that traced CUDA graphs as whole graphs (no kernels inside them) is
// read and says so, with the option that traces their kernels (--cuda-graph-trace=node).
TraceCapture read_nsys_file(const std::string& path);

}  // namespace k25
