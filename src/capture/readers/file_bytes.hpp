// The bytes of one input file, gunzipped where it is gzip (told by its magic number, not its name), with room
// after them for a JSON parser's padding: a gzip stream that ends early (a trace still being written) gives
// what was whole and says so.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace k25 {

class FileBytes {
 public:
  const char* data() const { return data_.get(); }
  char* data() { return data_.get(); }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }  // size() + at least the padding asked for
  bool cut = false;  // the gzip stream ends early: the bytes are what was whole
  std::string cut_reason;

 private:
  friend FileBytes bytes_of(const unsigned char* raw, std::size_t size, const std::string& path,
                            std::size_t padding, FileBytes reuse);
  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0, capacity_ = 0;
};

// The whole file, gunzipped (libdeflate; zlib where the stream ends early), followed by `padding` spare
// bytes; `reuse`'s buffer is written into where it is large enough. Throws UsageError naming the file when it
// cannot be read or its gzip data is corrupt.
FileBytes load_file_bytes(const std::string& path, std::size_t padding, FileBytes reuse = {});

// The size of its text: a gzip file's ISIZE (its last member's length mod 2^32), else its own size; 0 when it
// cannot be read.
std::uint64_t file_bytes_hint(const std::string& path);

// Whether the bytes begin as gzip does (its magic number).
bool is_gzip(const unsigned char* data, std::size_t size);

// The same for bytes in memory (tests, fuzzing); `name` names them in messages.
FileBytes file_bytes_from_text(std::string_view text, const std::string& name, std::size_t padding);

// Its first `limit` bytes (gunzipped where it is gzip), for telling its format; a short or unreadable file
// gives what there is (empty when none).
std::string file_head(const std::string& path, std::size_t limit);

}  // namespace k25
