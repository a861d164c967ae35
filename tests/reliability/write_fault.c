// Test-only LD_PRELOAD shim: write() into files under $K25_FAULT_DIR (whose path contains $K25_FAULT_NAME, when
// set) fails with ENOSPC once $K25_FAULT_BYTES bytes went there in all (a disk that fills up), for machines
// where a small tmpfs cannot be mounted.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t written_under_dir = 0;  // per process: only the coordinator writes the output directory

ssize_t write(int fd, const void* buffer, size_t count) {
  static ssize_t (*real_write)(int, const void*, size_t) = NULL;
  if (real_write == NULL) real_write = (ssize_t(*)(int, const void*, size_t))dlsym(RTLD_NEXT, "write");
  const char* dir = getenv("K25_FAULT_DIR");
  const char* limit_text = getenv("K25_FAULT_BYTES");
  if (dir == NULL || limit_text == NULL) return real_write(fd, buffer, count);
  char link[64], path[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t length = readlink(link, path, sizeof path - 1);
  if (length <= 0) return real_write(fd, buffer, count);
  path[length] = '\0';
  const char* name = getenv("K25_FAULT_NAME");
  if (strncmp(path, dir, strlen(dir)) != 0 || (name != NULL && strstr(path, name) == NULL))
    return real_write(fd, buffer, count);
  const size_t limit = strtoull(limit_text, NULL, 10);
  if (written_under_dir >= limit) {
    errno = ENOSPC;
    return -1;
  }
  if (count > limit - written_under_dir) count = limit - written_under_dir;  // a short write, as on a full disk
  const ssize_t written = real_write(fd, buffer, count);
  if (written > 0) written_under_dir += (size_t)written;
  return written;
}
