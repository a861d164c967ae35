/* A heap overflow on purpose: tools/test-sanitizers runs it before the tests to see that an AddressSanitizer
 * report names the file and line (the symbolizer is found), as every real report must. */
#include <stdlib.h>

int main(void) {
  volatile char* bytes = malloc(4);
  bytes[4] = 1; /* the line the report must name: symbolizer_check.c:7 */
  free((void*)bytes);
  return 0;
}
