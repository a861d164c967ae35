// Appends journal records with one write per line and fdatasync, so each gathered result is on disk.
#include "report/journal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "common/error.hpp"

namespace k25 {

Journal::Journal(std::string path) : path_(std::move(path)) {
  fd_ = UniqueFd(::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644));
  if (fd_.get() < 0)
    throw RuntimeFault(fmt::format("cannot create journal '{}': {}", path_, std::strerror(errno)), "open",
                       __FILE__, __LINE__);
}

void Journal::append(const nlohmann::json& record) {
  const std::string line = record.dump() + "\n";
  std::size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(fd_.get(), line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw RuntimeFault(
          fmt::format("cannot write journal '{}': {}", path_, std::strerror(n < 0 ? errno : ENOSPC)), "write",
          __FILE__, __LINE__);
    written += static_cast<std::size_t>(n);
  }
  if (::fdatasync(fd_.get()) != 0 && errno != EINVAL)
    throw RuntimeFault(fmt::format("cannot flush journal '{}': {}", path_, std::strerror(errno)), "fdatasync",
                       __FILE__, __LINE__);
}

}  // namespace k25
