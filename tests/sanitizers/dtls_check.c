/* Reproduces clang 14's LeakSanitizer crash at exit ("Tracer caught signal 11"), so that
 * tools/test-sanitizers can show its ASAN_OPTIONS avoid it. On glibc >= 2.25 a dlopen'd library's dynamic TLS
 * block comes from malloc, that is from ASan's heap. clang 14's __tls_get_addr interceptor guesses the
 * block's extent: a block that starts 16 bytes past a page is taken for glibc 2.19's {size, start} header,
 * which there is ASan's chunk header; the leak check at exit then scans from a stack id (a small number) and
 * the tracer faults. LLVM 17 asks the allocator instead. Here the block is placed 16 bytes past a page on
 * purpose: with quarantine off, the chunk freed last is the next malloc of its size, and glibc's malloc for
 * the block is that next one. Usage: dtls_check LIBRARY (dtls_module.c built as a shared library). Exit 0
 * when the process ends cleanly; the runtime's crash exits 1; 2: the library cannot be loaded; 3: no chunk
 * could be placed 16 bytes past a page. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { kBlockBytes = 100, kMostProbes = 4096 };

const char* __asan_default_options(void) {
  return "quarantine_size_mb=0:thread_local_quarantine_size_kb=0";
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: dtls_check LIBRARY\n");
    return 2;
  }
  void* library = dlopen(argv[1], RTLD_NOW);
  if (!library) {
    fprintf(stderr, "dtls_check: %s\n", dlerror());
    return 2;
  }
  void* (*touch)(void) = (void* (*)(void))dlsym(library, "touch_dtls_block");
  if (!touch) {
    fprintf(stderr, "dtls_check: %s\n", dlerror());
    return 2;
  }
  static void* held[kMostProbes];
  int count = 0;
  void* placed = NULL;
  while (count < kMostProbes) {
    void* probe = malloc(kBlockBytes);
    if ((uintptr_t)probe % 4096 == 16) {
      placed = probe;
      break;
    }
    held[count++] = probe;
  }
  if (!placed) {
    fprintf(stderr, "dtls_check: no chunk of %d bytes 16 bytes past a page in %d tries\n", kBlockBytes,
            kMostProbes);
    return 3;
  }
  free(placed);
  void* block = touch();
  printf("dtls_check: TLS block at %p, %s\n", block,
         block == placed ? "16 bytes past a page, as placed" : "not where it was placed");
  fflush(stdout); /* the runtime's crash at exit ends the process without flushing */
  for (int i = 0; i < count; ++i) free(held[i]);
  return block == placed ? 0 : 3;
}
