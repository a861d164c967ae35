// Whether NCCL user-buffer registration (--nccl-register) can take effect on this run, decided before any
// buffer is registered: a registration NCCL would accept and then not use must stop the run, not label it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/vocabulary.hpp"

namespace k25 {

// What decides it; filled by the app from the topology probe and the process environment.
struct RegistrationFacts {
  int nccl_version = 0;  // the runtime NCCL's version code (2.28.9 -> 22809); 0 where unknown
  int ranks = 1;
  int hosts = 1;
  bool emulated = false;  // --emulate-ranks: ranks talk through NCCL's socket transport
  std::string
      topology_kind;  // "pcie", "nvlink", "mixed", "emulated", ...; empty where this rank does not know
  std::optional<std::string> local_register_env;  // NCCL_LOCAL_REGISTER, where set
  std::optional<std::string> win_enable_env;      // NCCL_WIN_ENABLE, where set
  std::optional<std::string> cumem_enable_env;    // NCCL_CUMEM_ENABLE, where set
};

// The oldest NCCL with each mode: ncclMemAlloc and ncclCommRegister (2.19.0); ncclCommWindowRegister with
// symmetric kernels, as vLLM requires for VLLM_USE_NCCL_SYMM_MEM (2.27.3).
constexpr int kLocalRegisterMinVersion = 21900;
constexpr int kSymmetricRegisterMinVersion = 22703;

// Why `mode` cannot take effect with `facts` (a sentence naming the flag and what to do), or "" where it can.
// none always can. local needs a known NCCL >= 2.19 and NCCL_LOCAL_REGISTER not 0. symmetric needs a known
// NCCL >= 2.27.3, NCCL_WIN_ENABLE and NCCL_CUMEM_ENABLE not 0, more than one rank, and one host whose GPUs
// are all linked by NVLink (NCCL's symmetric kernels run only there): one rank, emulated ranks, PCIe and
// several hosts are refused.
[[nodiscard]] std::string registration_problem(NcclRegister mode, const RegistrationFacts& facts);

// "2.28.9" -> 22809 (NCCL's NCCL_VERSION(major, minor, patch) for 2.9 and later); 0 where `dotted` is not
// three dot-separated numbers.
[[nodiscard]] int nccl_version_code(std::string_view dotted);

// The report's note on a registered run ("" for none): what was registered and how, and what a one-rank or
// emulated run of it can show.
std::string registration_note(NcclRegister mode, int ranks, bool emulated);

}  // namespace k25
