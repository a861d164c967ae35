// madvise(MADV_HUGEPAGE) on the aligned inside of a buffer.
#include "capture/readers/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdint>

namespace k25 {

void prefer_huge_pages(void* data, std::size_t bytes) {
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  const auto start = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (start + kHuge - 1) & ~(kHuge - 1), last = (start + bytes) & ~(kHuge - 1);
  if (last <= first) return;
  // Advice only: where the kernel has no transparent huge pages, the buffer keeps its small pages.
  (void)::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}

}  // namespace k25
