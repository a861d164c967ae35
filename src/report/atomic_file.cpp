// Atomic whole-file writes (temporary file, fsync, rename) and output-directory checks.
#include "report/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/unique_fd.hpp"

namespace k25 {
namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path, const char* call, int error) {
  throw RuntimeFault(fmt::format("cannot {} '{}': {}", what, path, std::strerror(error)), call, __FILE__,
                     __LINE__);
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view content) {
  const std::string temporary = fmt::format("{}.tmp.{}", path, ::getpid());
  UniqueFd fd(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) fail("create", temporary, "open", errno);
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd.get(), content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : ENOSPC;
      ::unlink(temporary.c_str());
      fail("write", temporary, "write", error);
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd.get()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    fail("flush", temporary, "fsync", error);
  }
  if (::close(fd.release()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    fail("close", temporary, "close", error);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    fail("rename into place", path, "rename", error);
  }
}

void ensure_writable_directory(const std::string& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error)
    throw RuntimeFault(fmt::format("cannot create output directory '{}': {}", dir, error.message()),
                       "create_directories", __FILE__, __LINE__);
  if (::access(dir.c_str(), W_OK | X_OK) != 0) fail("write into output directory", dir, "access", errno);
}

}  // namespace k25
