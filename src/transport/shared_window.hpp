// One MPI-3 shared-memory window over the ranks of one host (MPI_Win_allocate_shared): each rank's segment,
// and every peer's as this process maps it (MPI_Win_shared_query). Move-only; freed with MPI_Win_free.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

namespace k25 {

class SharedWindow {
 public:
  SharedWindow() = default;
  // Collective over `node` (the ranks of one host): every rank gets a segment of `bytes` (64-byte aligned,
  // zeroed), and the node is barriered once they all are. Throws RuntimeFault naming the failed call.
  SharedWindow(MPI_Comm node, std::size_t bytes);
  SharedWindow(const SharedWindow&) = delete;
  SharedWindow& operator=(const SharedWindow&) = delete;
  SharedWindow(SharedWindow&& other) noexcept;
  SharedWindow& operator=(SharedWindow&& other) noexcept;
  ~SharedWindow();

  // Node-local rank `rank`'s segment, as this process maps it.
  std::byte* segment(int rank) const { return segments_.at(static_cast<std::size_t>(rank)); }
  std::size_t bytes() const { return bytes_; }

 private:
  MPI_Win window_ = MPI_WIN_NULL;
  std::size_t bytes_ = 0;
  std::vector<std::byte*> segments_;
};

}  // namespace k25
