// Creates the per-rank context: duplicated world communicators, node communicator, every rank's host name and
// node-local rank, and the host count.
#include "common/rank_context.hpp"

#include <array>
#include <cstring>

#include "common/error.hpp"

namespace k25 {

OwnedComm& OwnedComm::operator=(OwnedComm&& other) noexcept {
  if (this != &other) {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
    comm_ = other.comm_;
    other.comm_ = MPI_COMM_NULL;
  }
  return *this;
}

OwnedComm::~OwnedComm() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (comm_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm_);
}

RankContext::RankContext(double collective_timeout_s) : collective_timeout_s_(collective_timeout_s) {
  MPI_Comm world = MPI_COMM_NULL;
  K25_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &world));
  world_ = OwnedComm(world);
  MPI_Comm liveness = MPI_COMM_NULL;
  K25_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &liveness));
  liveness_ = OwnedComm(liveness);
  K25_MPI_CHECK(MPI_Comm_rank(world, &rank_));
  K25_MPI_CHECK(MPI_Comm_size(world, &size_));
  MPI_Comm node = MPI_COMM_NULL;
  K25_MPI_CHECK(MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node));
  node_ = OwnedComm(node);
  K25_MPI_CHECK(MPI_Comm_rank(node, &local_rank_));
  K25_MPI_CHECK(MPI_Comm_size(node, &local_size_));
  int leader = local_rank_ == 0 ? 1 : 0;
  K25_MPI_CHECK(MPI_Allreduce(&leader, &host_count_, 1, MPI_INT, MPI_SUM, world));

  std::array<char, MPI_MAX_PROCESSOR_NAME> name{};
  int length = 0;
  K25_MPI_CHECK(MPI_Get_processor_name(name.data(), &length));
  host_.assign(name.data(), static_cast<std::size_t>(length));
  std::vector<char> names(name.size() * static_cast<std::size_t>(size_));
  K25_MPI_CHECK(MPI_Allgather(name.data(), static_cast<int>(name.size()), MPI_CHAR, names.data(),
                              static_cast<int>(name.size()), MPI_CHAR, world));
  for (int r = 0; r < size_; ++r) {
    const char* entry = names.data() + static_cast<std::size_t>(r) * name.size();
    hosts_.emplace_back(entry, strnlen(entry, name.size()));
  }
  local_ranks_.resize(static_cast<std::size_t>(size_));
  K25_MPI_CHECK(MPI_Allgather(&local_rank_, 1, MPI_INT, local_ranks_.data(), 1, MPI_INT, world));
}

}  // namespace k25
