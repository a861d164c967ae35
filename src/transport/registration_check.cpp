// The rules of --nccl-register: NCCL version, environment switches and topology that let registration work.
#include "transport/registration_check.hpp"

#include <charconv>
#include <vector>

#include <fmt/format.h>

namespace k25 {
namespace {

std::string dotted(int code) {
  return fmt::format("{}.{}.{}", code / 10000, code / 100 % 100, code % 100);
}

// "NCCL_X=0 is set: NCCL ignores ...", or "" where the variable does not switch the feature off.
std::string switched_off(const std::optional<std::string>& value, const char* variable, const char* what) {
  if (!value || *value != "0") return {};
  return fmt::format("{}=0 is set, and with it NCCL ignores {}; unset it", variable, what);
}

}  // namespace

int nccl_version_code(std::string_view text) {
  std::vector<int> parts;
  while (!text.empty()) {
    const std::size_t dot = text.find('.');
    const std::string_view part = text.substr(0, dot);
    int value = 0;
    const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || error != std::errc() || end != part.data() + part.size() || value < 0) return 0;
    parts.push_back(value);
    if (dot == std::string_view::npos) break;
    text.remove_prefix(dot + 1);
    if (text.empty()) return 0;  // a trailing dot
  }
  if (parts.size() != 3 || parts[1] > 99 || parts[2] > 99) return 0;
  return parts[0] * 10000 + parts[1] * 100 + parts[2];
}

std::string registration_problem(NcclRegister mode, const RegistrationFacts& facts) {
  if (mode == NcclRegister::none) return {};
  const std::string flag = fmt::format("--nccl-register {}", to_string(mode));
  const int needed = mode == NcclRegister::local ? kLocalRegisterMinVersion : kSymmetricRegisterMinVersion;
  if (facts.nccl_version == 0)
    return fmt::format("{}: the runtime NCCL's version is unknown, and {} needs NCCL {} or later", flag, flag,
                       dotted(needed));
  if (facts.nccl_version < needed)
    return fmt::format(
        "{}: this run's NCCL is {}, and {} needs NCCL {} or later; use a newer NCCL (LD_LIBRARY_PATH) or leave --nccl-register at none",
        flag, dotted(facts.nccl_version),
        mode == NcclRegister::local ? "ncclCommRegister" : "symmetric registration", dotted(needed));
  if (mode == NcclRegister::local) {
    if (auto off = switched_off(facts.local_register_env, "NCCL_LOCAL_REGISTER", "ncclCommRegister");
        !off.empty())
      return flag + ": " + off;
    return {};
  }
  for (auto off : {switched_off(facts.win_enable_env, "NCCL_WIN_ENABLE", "ncclCommWindowRegister"),
                   switched_off(facts.cumem_enable_env, "NCCL_CUMEM_ENABLE",
                                "the cuMem allocations that symmetric windows need")})
    if (!off.empty()) return flag + ": " + off;
  constexpr const char* kWhy =
      "NCCL runs its symmetric kernels only between GPUs of one host linked by NVLink, and elsewhere would accept the registration and not use it";
  // NCCL enables symmetric windows only where every local peer is reached by direct P2P (init.cc:
  // symmetricSupport = isAllDirectP2p && nNodes == 1 && ...), and isAllDirectP2p is false with one local rank
  // (transport.cc); ncclCommWindowRegister then hands back a local registration under the window's name.
  if (facts.ranks <= 1)
    return fmt::format(
        "{}: {}; at one rank NCCL registers the window as a local buffer (no peer to reach). "
        "Use --nccl-register local or none at one rank",
        flag, kWhy);
  if (facts.emulated)
    return fmt::format(
        "{}: {}; emulated ranks talk through NCCL's socket transport. "
        "Use --nccl-register local or none with --emulate-ranks",
        flag, kWhy);
  if (facts.hosts > 1)
    return fmt::format("{}: {}; this run spans {} hosts. Use --nccl-register local or none", flag, kWhy,
                       facts.hosts);
  if (!facts.topology_kind.empty() && facts.topology_kind != "nvlink")
    return fmt::format("{}: {}; this host's GPUs are linked as '{}'. Use --nccl-register local or none", flag,
                       kWhy, facts.topology_kind);
  return {};
}

std::string registration_note(NcclRegister mode, int ranks, bool emulated) {
  if (mode == NcclRegister::none) return {};
  std::string note =
      mode == NcclRegister::local
          ? "NCCL buffer registration local: the send and receive buffers come from ncclMemAlloc and are registered with ncclCommRegister (nccl-tests -R 1)"
          : "NCCL buffer registration symmetric: the send and receive buffers come from ncclMemAlloc and are registered with ncclCommWindowRegister(NCCL_WIN_COLL_SYMMETRIC) at one size on every rank (nccl-tests -R 2, vLLM's VLLM_USE_NCCL_SYMM_MEM)";
  if (ranks <= 1)
    note += "; at one rank NCCL only copies locally, so no figure shows the registration's effect on a link";
  else if (emulated)
    note +=
        "; emulated ranks talk through NCCL's socket transport, which does not use registered buffers, so the figures show the registration's cost only, not its gain";
  return note;
}

}  // namespace k25
