// An input file's text a window at a time, for a reader that parses it piece by piece in memory that does not
// grow with the file: gunzipped as it is read (ISA-L's streaming inflate) where it is gzip (told by its magic
// number, not its name), read as it is otherwise, or text in memory. A gzip stream that is not whole (cut
// short, corrupt, a CRC that does not match) is `troubled`: the reader then reads the file whole
// (file_bytes.hpp), which says how.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/unique_fd.hpp"

namespace k25 {

class TextWindow {
 public:
  // The window's memory, handed from one file's window to the next (its pages already in place).
  struct Buffer {
    std::unique_ptr<char[]> data;
    std::size_t capacity = 0;
  };

  // `path`'s text; throws UsageError naming the file where it cannot be opened or is not a regular file.
  static TextWindow of_file(const std::string& path, std::size_t padding, Buffer reuse);
  // Text in memory (tests, fuzzing); `text` must outlive the window.
  static TextWindow of_text(std::string_view text, std::size_t padding, Buffer reuse);

  TextWindow(TextWindow&&) noexcept;
  TextWindow& operator=(TextWindow&&) noexcept;
  ~TextWindow();

  char* data() { return data_.get(); }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }  // size() + at least the padding asked for, zeroed
  bool at_end() const { return text_done_; }          // the window holds the rest of the text
  bool troubled() const { return troubled_; }         // not a whole gzip stream: read the file whole

  // Drops the window's first `consumed` bytes and reads on until it holds `want` bytes or the text ends.
  void advance(std::size_t consumed, std::size_t want);

  // Its memory, for the next file's window; this one is empty after.
  Buffer take_buffer();

 private:
  struct Inflate;
  TextWindow(std::size_t padding, Buffer reuse);
  void fill(std::size_t want);
  void fill_gzip(std::size_t want);
  bool read_input();   // more compressed bytes; false at the file's end
  bool next_member();  // after a gzip member: whether another follows (trailing zero bytes skipped)
  std::size_t read_plain(char* into, std::size_t room);

  std::size_t padding_;
  UniqueFd fd_;
  bool gzip_ = false;
  std::string_view memory_;  // of_text
  std::size_t memory_used_ = 0;
  std::unique_ptr<Inflate> inflate_;
  std::vector<unsigned char>
      input_;  // compressed bytes read and not yet inflated: [input_used_, input_size_)
  std::size_t input_used_ = 0, input_size_ = 0;
  bool input_done_ = false, text_done_ = false, troubled_ = false;
  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0, capacity_ = 0;
};

}  // namespace k25
