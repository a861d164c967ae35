/* A dlclose that unloads nothing, preloaded (LD_PRELOAD) into every process of tools/test-sanitizers. Open
 * MPI unloads the components it does not select; LeakSanitizer then finds the frames of their allocations in
 * no module and, for each, reloads its module list (a read of /proc/self/maps), which cost an MPI rank more
 * CPU than its run. Kept loaded, every frame has its module. ASan's own dlclose interceptor calls this one as
 * the real dlclose. */
int dlclose(void* handle) {
  (void)handle;
  return 0;
}
