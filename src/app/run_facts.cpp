// Reads the run's environment and system facts.
#include "app/run_facts.hpp"

#include <mpi.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/redaction.hpp"

extern char** environ;

namespace k25 {

std::string utc_now_iso8601() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", utc.tm_year + 1900, utc.tm_mon + 1,
                     utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, millis);
}

namespace {

// NCCL_*, UCX_*, the user's OMPI_MCA_* settings (not the ones mpirun sets for its own wiring), Slurm's job
// facts.
bool is_reported_variable(const std::string& name) {
  if (name.starts_with("NCCL_") || name.starts_with("UCX_") || name.starts_with("SLURM_JOB") ||
      name == "CUDA_VISIBLE_DEVICES")
    return true;
  if (!name.starts_with("OMPI_MCA_")) return false;
  for (const char* internal : {"OMPI_MCA_orte_", "OMPI_MCA_ess", "OMPI_MCA_pmix", "OMPI_MCA_initial_wdir",
                               "OMPI_MCA_shmem_RUNTIME", "OMPI_MCA_mpi_yield_when_idle"})
    if (name.starts_with(internal)) return false;
  return true;
}

}  // namespace

std::map<std::string, std::string> launcher_environment() {
  std::map<std::string, std::string> found;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const auto equals = text.find('=');
    if (equals == std::string::npos) continue;
    const std::string name = text.substr(0, equals);
    if (is_reported_variable(name)) found[name] = text.substr(equals + 1);
  }
  return redact_environment(std::move(found));
}

std::string mpi_library_version() {
  std::array<char, MPI_MAX_LIBRARY_VERSION_STRING> text{};
  int length = 0;
  if (MPI_Get_library_version(text.data(), &length) != MPI_SUCCESS) return "unknown";
  std::string version(text.data(), static_cast<std::size_t>(length));
  if (const auto end = version.find_first_of(",\n"); end != std::string::npos) version.resize(end);
  return version;
}

std::map<std::string, int> gather_host_cores(const RankContext& context,
                                             const std::vector<std::string>& hosts) {
  const int mine = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  std::vector<int> all(context.is_coordinator() ? static_cast<std::size_t>(context.size()) : 0);
  K25_MPI_CHECK(MPI_Gather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, 0, context.world()));
  std::map<std::string, int> cores;
  for (std::size_t r = 0; r < all.size() && r < hosts.size(); ++r) cores[hosts[r]] = all[r];
  return cores;
}

namespace {
int integer_from_env(std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (const char* value = std::getenv(name); value != nullptr && *value != '\0') return std::atoi(value);
  return -1;
}
}  // namespace

int launcher_rank() {
  const int rank = integer_from_env({"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"});
  return rank < 0 ? 0 : rank;
}

int launcher_size() {
  const int size = integer_from_env({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"});
  return size < 0 ? 0 : size;
}

}  // namespace k25
