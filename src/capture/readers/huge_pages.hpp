// Large buffers of the capture (a file's text, the activities of a run) backed by transparent huge pages
// where the kernel offers them on request (madvise mode): a 150 MB text is then faulted in 75 times instead
// of 37,000.
#pragma once

#include <cstddef>

namespace k25 {

// Asks for huge pages on the 2 MB-aligned part of [data, data + bytes); nothing where the kernel cannot.
void prefer_huge_pages(void* data, std::size_t bytes);

}  // namespace k25
