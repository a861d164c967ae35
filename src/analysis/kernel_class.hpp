// The kernel classes of a profiler trace's GPU time (communication, GEMM, attention, ...), in the order the
// outputs list them, with their keys and titles: the vocabulary the kernel-class table sorts kernels into and
// the trace result reports by.
#pragma once

#include <array>
#include <cstdint>

namespace k25 {

// The classes, in the order the outputs list them. `unclassified`: no rule matched.
enum class KernelClass : std::uint8_t {
  communication,
  gemm,
  attention,
  moe_routing,
  norm_elementwise,
  memcpy_memset,
  other,
  unclassified
};

struct KernelClassInfo {
  KernelClass id;
  const char* key;    // in the tables and capture.json: "moe_routing"
  const char* title;  // in capture.md: "MoE routing/permute"
};
inline constexpr std::array<KernelClassInfo, 8> kKernelClasses = {{
    {KernelClass::communication, "communication", "communication"},
    {KernelClass::gemm, "gemm", "GEMM"},
    {KernelClass::attention, "attention", "attention"},
    {KernelClass::moe_routing, "moe_routing", "MoE routing/permute"},
    {KernelClass::norm_elementwise, "norm_elementwise", "norm/elementwise"},
    {KernelClass::memcpy_memset, "memcpy_memset", "memcpy/memset"},
    {KernelClass::other, "other", "other"},
    {KernelClass::unclassified, "unclassified", "unclassified"},
}};
inline const KernelClassInfo& kernel_class_info(KernelClass id) {
  return kKernelClasses[static_cast<std::size_t>(id)];
}

}  // namespace k25
