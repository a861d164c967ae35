/* A library with a thread-local block, for dtls_check.c: loaded by dlopen, glibc mallocs its TLS block on
 * first use. */
__thread char dtls_block[100];

void* touch_dtls_block(void) {
  dtls_block[0] = 1;
  return dtls_block;
}
