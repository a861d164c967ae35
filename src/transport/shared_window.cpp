// The shared-memory window of one host's ranks, allocated, mapped and freed.
#include "transport/shared_window.hpp"

#include <cstring>
#include <exception>
#include <utility>

#include "common/error.hpp"

namespace k25 {

SharedWindow::SharedWindow(MPI_Comm node, std::size_t bytes) : bytes_((bytes + 63) / 64 * 64) {
  int ranks = 0, me = 0;
  K25_MPI_CHECK(MPI_Comm_size(node, &ranks));
  K25_MPI_CHECK(MPI_Comm_rank(node, &me));
  void* mine = nullptr;
  K25_MPI_CHECK(
      MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes_), 64, MPI_INFO_NULL, node, &mine, &window_));
  for (int rank = 0; rank < ranks; ++rank) {
    MPI_Aint size = 0;
    int unit = 0;
    void* base = nullptr;
    K25_MPI_CHECK(MPI_Win_shared_query(window_, rank, &size, &unit, &base));
    segments_.push_back(static_cast<std::byte*>(base));
  }
  std::memset(mine, 0, bytes_);
  K25_MPI_CHECK(MPI_Barrier(node));
}

SharedWindow::SharedWindow(SharedWindow&& other) noexcept
    : window_(std::exchange(other.window_, MPI_WIN_NULL)),
      bytes_(other.bytes_),
      segments_(std::move(other.segments_)) {}

SharedWindow& SharedWindow::operator=(SharedWindow&& other) noexcept {
  if (this != &other) {
    if (window_ != MPI_WIN_NULL) MPI_Win_free(&window_);
    window_ = std::exchange(other.window_, MPI_WIN_NULL);
    bytes_ = other.bytes_;
    segments_ = std::move(other.segments_);
  }
  return *this;
}

// MPI_Win_free is collective: while an exception unwinds (a peer that never arrived, a signal) the peers may
// be anywhere else, so the window is left to MPI_Finalize or the job's end instead of a free that could wait
// for ever.
SharedWindow::~SharedWindow() {
  if (window_ != MPI_WIN_NULL && std::uncaught_exceptions() == 0) MPI_Win_free(&window_);
}

}  // namespace k25
