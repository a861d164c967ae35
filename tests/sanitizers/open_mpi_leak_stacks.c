/* Under AddressSanitizer, the programs that run Open MPI (k25comm, the MPI test programs) unwind each
 * allocation's stack slowly: tests/sanitizers/lsan.supp names Open MPI's lifetime allocations by the libmpi
 * and libopen-pal frames below them, which the fast (frame-pointer) unwinder does not reach through libraries
 * built without frame pointers (it stops in libpmix, an MCA component or libc's vasprintf, and 10 leaks a
 * rank stay unmatched). Every other sanitized program keeps the fast unwinder: the slow one made the report
 * reader's unit test 3.4 times slower. The runtime reads this before ASAN_OPTIONS, which
 * tools/test-sanitizers leaves without fast_unwind_on_malloc. */
const char* __asan_default_options(void);
const char* __asan_default_options(void) {
  return "fast_unwind_on_malloc=0";
}
