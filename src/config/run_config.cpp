// Names of the config's enumerations as they appear in YAML, on the command line and in the report.
#include "config/run_config.hpp"

namespace k25 {

const char* to_string(Dtype dtype) {
  switch (dtype) {
    case Dtype::bf16:
      return "bf16";
    case Dtype::fp32:
      return "fp32";
    case Dtype::fp8:
      return "fp8";
  }
  return "?";
}

const char* to_string(Phase phase) {
  switch (phase) {
    case Phase::allreduce:
      return "allreduce";
    case Phase::dispatch:
      return "dispatch";
    case Phase::combine:
      return "combine";
  }
  return "?";
}

const char* to_string(TimingMode mode) {
  return mode == TimingMode::eager ? "eager" : "graph";
}
const char* to_string(RoutingModel model) {
  return model == RoutingModel::uniform ? "uniform" : "zipf";
}
const char* to_string(CopyGranularity copies) {
  return copies == CopyGranularity::per_rank ? "per_rank" : "per_expert";
}

const char* to_string(Backend backend) {
  switch (backend) {
    case Backend::automatic:
      return "auto";
    case Backend::nccl:
      return "nccl";
    case Backend::mpi:
      return "mpi";
  }
  return "?";
}

const char* to_string(ServeApi api) {
  return api == ServeApi::chat ? "chat" : "completions";
}

std::size_t dtype_bytes(Dtype dtype) {
  switch (dtype) {
    case Dtype::bf16:
      return 2;
    case Dtype::fp32:
      return 4;
    case Dtype::fp8:
      return 1;
  }
  return 1;
}

}  // namespace k25
