// The lowest rank with a problem broadcasts its text.
#include "common/first_problem.hpp"

#include <array>
#include <climits>

#include "common/error.hpp"

namespace k25 {

std::string first_problem(MPI_Comm comm, const std::string& mine) {
  int rank = 0;
  K25_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  const int candidate = mine.empty() ? INT_MAX : rank;
  int first = INT_MAX;
  K25_MPI_CHECK(MPI_Allreduce(&candidate, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == INT_MAX) return {};
  std::array<char, 1024> text{};
  if (rank == first) mine.copy(text.data(), text.size() - 1);
  K25_MPI_CHECK(MPI_Bcast(text.data(), static_cast<int>(text.size()), MPI_CHAR, first, comm));
  return text.data();
}

}  // namespace k25
