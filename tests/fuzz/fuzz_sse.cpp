// libFuzzer target: a hostile server's SSE stream, fed in fuzzer-chosen slices, through the SSE parser and the
// chunk interpreter; the events must not depend on where the stream was cut.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "serve/sse_parser.hpp"
#include "serve/stream_chunk.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t slice_seed = data[0];  // the first byte picks the slice lengths, the rest is the stream
  const std::string_view stream(reinterpret_cast<const char*>(data + 1), size - 1);

  std::vector<k25::SseEvent> whole;
  k25::SseParser at_once;
  at_once.feed(stream, whole);

  std::vector<k25::SseEvent> sliced;
  k25::SseParser in_slices;
  for (std::size_t at = 0, step = 0; at < stream.size(); ++step) {
    const std::size_t length = 1 + (slice_seed * (step + 1) + step) % 17;
    in_slices.feed(stream.substr(at, length), sliced);
    at += length;
  }
  if (sliced != whole || in_slices.has_partial_event() != at_once.has_partial_event()) std::abort();

  for (const auto& event : whole) {
    const k25::StreamChunk chunk = k25::interpret_stream_chunk(event.data);
    if (chunk.content_bytes > event.data.size()) std::abort();
    (void)k25::error_body_message(event.data);
  }
  return 0;
}
