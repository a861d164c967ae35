// A file's text through a sliding window, gunzipped on the way with ISA-L's streaming inflate.
#include "capture/readers/text_window.hpp"

#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include <fmt/format.h>

#include "capture/readers/file_bytes.hpp"
#include "capture/readers/huge_pages.hpp"
#include "common/error.hpp"

namespace k25 {
namespace {

constexpr std::size_t kInputBytes = 1 << 20;  // compressed bytes read at a time
constexpr std::size_t kSmallestGzip = 18;     // a header and a trailer

}  // namespace

struct TextWindow::Inflate {
  inflate_state state;
};

TextWindow::TextWindow(std::size_t padding, Buffer reuse)
    : padding_(padding), data_(std::move(reuse.data)), capacity_(data_ ? reuse.capacity : 0) {}
TextWindow::TextWindow(TextWindow&&) noexcept = default;
TextWindow& TextWindow::operator=(TextWindow&&) noexcept = default;
TextWindow::~TextWindow() = default;

TextWindow TextWindow::of_file(const std::string& path, std::size_t padding, Buffer reuse) {
  TextWindow window(padding, std::move(reuse));
  window.fd_ = UniqueFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (window.fd_.get() < 0) throw UsageError(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
  struct stat st {};
  if (::fstat(window.fd_.get(), &st) != 0 || !S_ISREG(st.st_mode))
    throw UsageError(fmt::format("{}: cannot read: not a regular file", path));
  unsigned char magic[2] = {};
  window.gzip_ = ::pread(window.fd_.get(), magic, 2, 0) == 2 && is_gzip(magic, 2);
  // Too short to be a whole gzip member: the whole-file reader says what it is.
  if (window.gzip_ && static_cast<std::size_t>(st.st_size) < kSmallestGzip) window.troubled_ = true;
  if (window.gzip_) window.input_.resize(kInputBytes);
  return window;
}

TextWindow TextWindow::of_text(std::string_view text, std::size_t padding, Buffer reuse) {
  TextWindow window(padding, std::move(reuse));
  window.memory_ = text;
  window.gzip_ = is_gzip(reinterpret_cast<const unsigned char*>(text.data()), text.size());
  if (window.gzip_ && text.size() < kSmallestGzip) window.troubled_ = true;
  if (window.gzip_) window.input_.resize(kInputBytes);
  return window;
}

std::size_t TextWindow::read_plain(char* into, std::size_t room) {
  if (fd_.get() < 0) {
    const std::size_t n = std::min(room, memory_.size() - memory_used_);
    std::memcpy(into, memory_.data() + memory_used_, n);
    memory_used_ += n;
    return n;
  }
  for (;;) {
    const ssize_t n = ::read(fd_.get(), into, room);
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno == EINTR) continue;
    troubled_ = true;  // the whole-file reader names the error
    return 0;
  }
}

bool TextWindow::read_input() {
  if (input_done_) return false;
  inflate_state& s = inflate_->state;
  const std::size_t kept = s.avail_in;
  if (kept > 0) std::memmove(input_.data(), s.next_in, kept);
  const std::size_t n = read_plain(reinterpret_cast<char*>(input_.data() + kept), input_.size() - kept);
  s.next_in = input_.data();
  s.avail_in = static_cast<std::uint32_t>(kept + n);
  if (n == 0) input_done_ = true;
  return n > 0;
}

bool TextWindow::next_member() {
  inflate_state& s = inflate_->state;
  for (;;) {
    while (s.avail_in > 0 && *s.next_in == 0) {  // trailing zero bytes are padding
      ++s.next_in;
      --s.avail_in;
    }
    if (s.avail_in >= 2 || (s.avail_in > 0 && input_done_)) break;
    if (!read_input() && s.avail_in == 0) return false;
  }
  // Another member (concatenated gzip), or bytes that are not gzip: the text ends, as the whole-file reader
  // ends it.
  if (!is_gzip(s.next_in, s.avail_in)) return false;
  std::uint8_t* in = s.next_in;
  const std::uint32_t in_size = s.avail_in;
  isal_inflate_reset(&s);
  s.crc_flag = ISAL_GZIP;
  s.next_in = in;
  s.avail_in = in_size;
  return true;
}

void TextWindow::fill_gzip(std::size_t want) {
  if (!inflate_) {
    inflate_ = std::make_unique<Inflate>();
    isal_inflate_init(&inflate_->state);
    inflate_->state.crc_flag = ISAL_GZIP;
  }
  inflate_state& s = inflate_->state;
  while (size_ < want && !text_done_) {
    const std::size_t room = std::min<std::size_t>(want - size_, UINT32_MAX);
    s.next_out = reinterpret_cast<std::uint8_t*>(data_.get() + size_);
    s.avail_out = static_cast<std::uint32_t>(room);
    const int rc = isal_inflate(&s);
    size_ += room - s.avail_out;
    if (rc < 0 || rc == ISAL_NEED_DICT) {  // corrupt data, a CRC that does not match
      troubled_ = text_done_ = true;
      return;
    }
    if (s.block_state == ISAL_BLOCK_FINISH) {
      if (!next_member()) text_done_ = true;
      continue;
    }
    // It stopped with room left: it needs more of the stream, or the stream is cut short.
    if (s.avail_out > 0 && !read_input()) troubled_ = text_done_ = true;
  }
}

void TextWindow::fill(std::size_t want) {
  if (want + padding_ > capacity_) {
    const std::size_t wanted = want + padding_;
    std::unique_ptr<char[]> bigger(new char[wanted]);
    prefer_huge_pages(bigger.get(), wanted);
    if (size_ > 0) std::memcpy(bigger.get(), data_.get(), size_);
    data_ = std::move(bigger);
    capacity_ = wanted;
  }
  if (troubled_) {
    text_done_ = true;
  } else if (gzip_) {
    fill_gzip(want);
  } else {
    while (size_ < want && !text_done_) {
      const std::size_t n = read_plain(data_.get() + size_, want - size_);
      size_ += n;
      if (n == 0) text_done_ = true;
    }
  }
  std::memset(data_.get() + size_, 0, capacity_ - size_ < padding_ ? capacity_ - size_ : padding_);
}

TextWindow::Buffer TextWindow::take_buffer() {
  Buffer buffer{std::move(data_), capacity_};
  size_ = capacity_ = 0;
  return buffer;
}

void TextWindow::advance(std::size_t consumed, std::size_t want) {
  consumed = std::min(consumed, size_);
  if (consumed > 0) std::memmove(data_.get(), data_.get() + consumed, size_ - consumed);
  size_ -= consumed;
  fill(std::max(want, size_));
}

}  // namespace k25
