// Stream chunks from a hostile server found by fuzzing (tests/fuzz/fuzz_sse): classified, never thrown.
#include <catch2/catch.hpp>

#include "serve/stream_chunk.hpp"

TEST_CASE("stream chunk: an \"object\" member that is not a string is not an error chunk, and no throw",
          "[serve][regression]") {
  // fuzz_sse crash: j.value("object", "") threw json type_error 302 for {"object": 400}, which would end the
  // whole serve phase instead of classifying one chunk.
  k25::StreamChunk chunk;
  REQUIRE_NOTHROW(chunk = k25::interpret_stream_chunk(R"({"object":  400})"));
  CHECK(chunk.kind == k25::ChunkKind::empty);
  REQUIRE_NOTHROW(chunk =
                      k25::interpret_stream_chunk(R"({"object": ["error"], "choices": [{"text": "a"}]})"));
  CHECK(chunk.kind == k25::ChunkKind::content);
  CHECK(k25::interpret_stream_chunk(R"({"object": "error", "message": "m"})").kind == k25::ChunkKind::error);
}
