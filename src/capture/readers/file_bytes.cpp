// Reading an input file whole, gunzipped with libdeflate (zlib's streaming inflate for a stream cut short).
#include "capture/readers/file_bytes.hpp"

#include <fcntl.h>
#include <libdeflate.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "capture/readers/huge_pages.hpp"
#include "common/error.hpp"
#include "common/unique_fd.hpp"

namespace k25 {
bool is_gzip(const unsigned char* data, std::size_t size) {
  return size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
}

namespace {

// Reads up to `limit` bytes of the file (all of it by default).
std::vector<unsigned char> read_raw(const std::string& path, std::size_t limit = SIZE_MAX) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) throw UsageError(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    throw UsageError(fmt::format("{}: cannot read: not a regular file", path));
  std::vector<unsigned char> bytes(std::min(limit, static_cast<std::size_t>(st.st_size)));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw UsageError(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  bytes.resize(done);
  return bytes;
}

// A growing output buffer that is never zero-filled (only the bytes written are touched).
struct Output {
  std::unique_ptr<char[]> data;
  std::size_t size = 0, capacity = 0;
  void reserve(std::size_t wanted) {
    if (wanted <= capacity) return;
    std::unique_ptr<char[]> bigger(new char[wanted]);
    prefer_huge_pages(bigger.get(), wanted);
    if (size > 0) std::memcpy(bigger.get(), data.get(), size);
    data = std::move(bigger);
    capacity = wanted;
  }
};

// zlib's streaming inflate from `in`: every gzip member in turn; stops where the data ends early. Returns
// false with `cut` filled when the stream ends before its end; throws on corrupt data.
bool inflate_stream(const std::string& path, const unsigned char* in, std::size_t in_size, Output& out,
                    std::size_t padding, std::size_t limit, std::string& cut) {
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
    throw UsageError(fmt::format("{}: zlib inflateInit2 failed", path));
  struct End {
    z_stream* zs;
    ~End() { inflateEnd(zs); }
  } end{&zs};
  std::size_t consumed = 0;
  for (;;) {
    // A head (`limit` bytes: the format's sniff) is inflated up to its end, not megabytes past it.
    const std::size_t wanted = limit == SIZE_MAX ? SIZE_MAX : limit - out.size;
    if (out.capacity - out.size < padding + std::min<std::size_t>(wanted, 1 << 20))
      out.reserve(std::max(out.capacity * 2, out.size + padding + std::min<std::size_t>(wanted, 4 << 20)));
    const std::size_t chunk_in = std::min<std::size_t>(in_size - consumed, 1u << 30);
    zs.next_in = const_cast<unsigned char*>(in + consumed);
    zs.avail_in = static_cast<uInt>(chunk_in);
    const std::size_t room = std::min<std::size_t>({out.capacity - out.size - padding, 1u << 30, wanted});
    zs.next_out = reinterpret_cast<unsigned char*>(out.data.get() + out.size);
    zs.avail_out = static_cast<uInt>(room);
    const int rc = inflate(&zs, Z_NO_FLUSH);
    consumed += chunk_in - zs.avail_in;
    out.size += room - zs.avail_out;
    if (out.size >= limit) return true;
    if (rc == Z_STREAM_END) {
      // Another member may follow (concatenated gzip); trailing zero bytes are padding.
      while (consumed < in_size && in[consumed] == 0) ++consumed;
      if (consumed >= in_size) return true;
      if (!is_gzip(in + consumed, in_size - consumed)) return true;
      inflateReset(&zs);
      continue;
    }
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR && consumed >= in_size) {
      cut = fmt::format("its gzip stream ends early, after {} bytes of data (a trace still being written?)",
                        out.size);
      return false;
    }
    if (rc == Z_BUF_ERROR) continue;
    throw UsageError(fmt::format("{}: corrupt gzip data after {} bytes ({})", path, out.size,
                                 zs.msg ? zs.msg : "inflate failed"));
  }
}

// libdeflate's whole-buffer inflate of every member; false where it cannot (a stream cut short).
bool inflate_whole(const unsigned char* in, std::size_t in_size, Output& out, std::size_t padding) {
  struct Decompressor {
    libdeflate_decompressor* d = libdeflate_alloc_decompressor();
    ~Decompressor() { libdeflate_free_decompressor(d); }
  } decompressor;
  if (!decompressor.d) return false;
  // ISIZE (the last member's size mod 2^32) is exact for the usual one member under 4 GiB.
  std::uint32_t isize = 0;
  std::memcpy(&isize, in + in_size - 4, 4);
  std::size_t guess = isize;
  if (guess < in_size || guess / 64 > in_size) guess = in_size * 8 + (1 << 20);
  out.reserve(guess + padding);
  std::size_t consumed = 0;
  while (consumed < in_size) {
    std::size_t in_used = 0, out_used = 0;
    const libdeflate_result rc = libdeflate_gzip_decompress_ex(
        decompressor.d, in + consumed, in_size - consumed, out.data.get() + out.size,
        out.capacity - out.size - padding, &in_used, &out_used);
    if (rc == LIBDEFLATE_INSUFFICIENT_SPACE) {
      out.reserve(out.capacity * 2 + padding);
      continue;
    }
    if (rc != LIBDEFLATE_SUCCESS) return false;
    consumed += in_used;
    out.size += out_used;
    while (consumed < in_size && in[consumed] == 0) ++consumed;
    if (consumed < in_size && !is_gzip(in + consumed, in_size - consumed)) break;
  }
  return true;
}

}  // namespace

FileBytes bytes_of(const unsigned char* raw, std::size_t size, const std::string& path, std::size_t padding,
                   FileBytes reuse) {
  FileBytes bytes;
  Output out;
  out.data = std::move(reuse.data_);
  out.capacity = out.data ? reuse.capacity_ : 0;
  if (!is_gzip(raw, size)) {
    out.reserve(size + padding);
    if (size > 0) std::memcpy(out.data.get(), raw, size);
    out.size = size;
  } else {
    if (size < 18 || !inflate_whole(raw, size, out, padding)) {
      out = Output{};
      std::string cut;
      if (!inflate_stream(path, raw, size, out, padding, SIZE_MAX, cut)) {
        bytes.cut = true;
        bytes.cut_reason = cut;
      }
    }
    out.reserve(out.size + padding);
  }
  bytes.data_ = std::move(out.data);
  bytes.size_ = out.size;
  bytes.capacity_ = out.capacity;
  if (!bytes.data_) {  // an empty file
    bytes.data_.reset(new char[padding + 1]);
    bytes.capacity_ = padding + 1;
  }
  std::memset(bytes.data_.get() + bytes.size_, 0, std::min(padding, bytes.capacity_ - bytes.size_));
  return bytes;
}

FileBytes load_file_bytes(const std::string& path, std::size_t padding, FileBytes reuse) {
  const std::vector<unsigned char> raw = read_raw(path);
  return bytes_of(raw.data(), raw.size(), path, padding, std::move(reuse));
}

std::uint64_t file_bytes_hint(const std::string& path) {
  std::error_code ec;
  const std::uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) return 0;
  std::vector<unsigned char> magic;
  try {
    magic = read_raw(path, 2);
  } catch (const UsageError&) {
    return 0;
  }
  if (!is_gzip(magic.data(), magic.size()) || size < 18) return size;
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  unsigned char isize[4] = {};
  if (fd.get() < 0 || ::pread(fd.get(), isize, 4, static_cast<off_t>(size - 4)) != 4) return size;
  return static_cast<std::uint64_t>(isize[0]) | static_cast<std::uint64_t>(isize[1]) << 8 |
         static_cast<std::uint64_t>(isize[2]) << 16 | static_cast<std::uint64_t>(isize[3]) << 24;
}

FileBytes file_bytes_from_text(std::string_view text, const std::string& name, std::size_t padding) {
  return bytes_of(reinterpret_cast<const unsigned char*>(text.data()), text.size(), name, padding,
                  FileBytes{});
}

std::string file_head(const std::string& path, std::size_t limit) {
  std::vector<unsigned char> raw;
  try {
    const std::vector<unsigned char> magic = read_raw(path, 2);
    raw = read_raw(path, is_gzip(magic.data(), magic.size()) ? (1 << 20) : limit);
  } catch (const UsageError&) {
    return {};
  }
  if (!is_gzip(raw.data(), raw.size())) return std::string(raw.begin(), raw.end());
  Output out;
  std::string cut;
  try {
    (void)inflate_stream(path, raw.data(), raw.size(), out, 0, limit, cut);
  } catch (const UsageError&) {
  }
  return std::string(out.data.get(), std::min(out.size, limit));
}

}  // namespace k25
