/* The baseline of tools/bench-host-allreduce: a bare AllReduce burst (sum) timed with MPI_Wtime.
 * Each repetition is a barrier then `ops` back-to-back AllReduces; its time is the max over ranks. Printed: the p50
 * and the minimum of the repetitions, each divided by `ops`: per-op times in microseconds ("P50 MIN"). The minimum
 * is the burst's cost without the interruptions a shared machine adds.
 *   DTYPE fp32: MPI_FLOAT with MPI_SUM.
 *   DTYPE bf16: 16-bit words with a user-defined MPI_Op, the same arithmetic as k25comm's (add in fp32, round to
 *               nearest even, NaN kept quiet), written branch-free so that the compiler vectorises it (build
 *               this file at -O3).
 *   MODE blocking:    MPI_Allreduce (MPI_THREAD_FUNNELED).
 *   MODE watched:     MPI_Allreduce armed on a watchdog thread, as k25comm's host transport runs it: the library
 *                     at MPI_THREAD_MULTIPLE, a thread that looks at an atomic sequence number every 100 ms (never
 *                     firing here), and two sequentially consistent atomic additions plus a load around each op.
 *   MODE nonblocking: MPI_Iallreduce completed by polling MPI_Test (the clock read every 256 polls), k25comm's way
 *                     where the library lacks MPI_THREAD_MULTIPLE. Open MPI serves it from libnbc, whose
 *                     algorithms differ from the blocking call's: this mode shows by how much.
 * usage: bare_allreduce DTYPE MODE BYTES REPS OPS WARMUP */
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static void bf16_sum(void* in, void* inout, int* length, MPI_Datatype* type) {
  (void)type;
  const uint16_t* a = (const uint16_t*)in;
  uint16_t* b = (uint16_t*)inout;
  const int n = *length;
  for (int i = 0; i < n; ++i) {
    const uint32_t wa = (uint32_t)a[i] << 16, wb = (uint32_t)b[i] << 16;
    float fa, fb;
    memcpy(&fa, &wa, 4);
    memcpy(&fb, &wb, 4);
    const float sum = fa + fb;
    uint32_t w;
    memcpy(&w, &sum, 4);
    const uint32_t rounded = (w + 0x7FFFu + ((w >> 16) & 1u)) >> 16;
    const uint32_t quiet_nan = (w >> 16) | 0x40u;
    const uint32_t is_nan = (uint32_t)0 - (uint32_t)((w & 0x7FFFFFFFu) > 0x7F800000u); /* all ones or zero */
    b[i] = (uint16_t)((quiet_nan & is_nan) | (rounded & ~is_nan));
  }
}

enum Mode { blocking, watched, nonblocking };

typedef struct {
  void *in, *out;
  int count;
  MPI_Datatype type;
  MPI_Op op;
  enum Mode mode;
} Burst;

/* The watchdog's state, as in k25comm's common/wait_watchdog.hpp. */
static atomic_uint_fast64_t watch_sequence;
static _Atomic(const void*) watch_point;
static atomic_bool watch_firing, watch_stop;

static void* watch(void* unused) {
  (void)unused;
  uint_fast64_t seen = 0;
  const struct timespec look = {0, 100 * 1000 * 1000};
  while (!atomic_load(&watch_stop)) {
    nanosleep(&look, NULL);
    seen = atomic_load(&watch_sequence); /* never fires: no deadline in a benchmark */
  }
  (void)seen;
  return NULL;
}

static void allreduce(const Burst* burst) {
  if (burst->mode == blocking) {
    MPI_Allreduce(burst->in, burst->out, burst->count, burst->type, burst->op, MPI_COMM_WORLD);
    return;
  }
  if (burst->mode == watched) {
    atomic_store_explicit(&watch_point, burst, memory_order_relaxed);
    atomic_fetch_add(&watch_sequence, 1);
    MPI_Allreduce(burst->in, burst->out, burst->count, burst->type, burst->op, MPI_COMM_WORLD);
    atomic_fetch_add(&watch_sequence, 1);
    if (atomic_load(&watch_firing)) abort();
    return;
  }
  MPI_Request request;
  MPI_Iallreduce(burst->in, burst->out, burst->count, burst->type, burst->op, MPI_COMM_WORLD, &request);
  int done = 0;
  for (unsigned polls = 1; !done; ++polls) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (!done && (polls & 255u) == 0) (void)MPI_Wtime(); /* the deadline check k25comm makes */
  }
}

int main(int argc, char** argv) {
  const int watching = argc > 2 && strcmp(argv[2], "watched") == 0;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, watching ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED, &provided);
  if (argc != 7 || (strcmp(argv[1], "fp32") != 0 && strcmp(argv[1], "bf16") != 0) ||
      (strcmp(argv[2], "blocking") != 0 && !watching && strcmp(argv[2], "nonblocking") != 0)) {
    fprintf(stderr, "usage: bare_allreduce fp32|bf16 blocking|watched|nonblocking BYTES REPS OPS WARMUP\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (watching && provided != MPI_THREAD_MULTIPLE) {
    fprintf(stderr, "bare_allreduce: the MPI library does not provide MPI_THREAD_MULTIPLE\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  pthread_t watchdog;
  if (watching) pthread_create(&watchdog, NULL, watch, NULL);
  const int bf16 = strcmp(argv[1], "bf16") == 0;
  const int element = bf16 ? 2 : 4;
  const int reps = atoi(argv[4]), ops = atoi(argv[5]), warmup = atoi(argv[6]);
  Burst burst;
  burst.count = atoi(argv[3]) / element;
  burst.mode = watching ? watched : strcmp(argv[2], "nonblocking") == 0 ? nonblocking : blocking;
  burst.type = bf16 ? MPI_UINT16_T : MPI_FLOAT;
  burst.op = MPI_SUM;
  if (bf16) MPI_Op_create(&bf16_sum, 1, &burst.op);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  /* Inputs of 1.0 (0x3F80 in bf16): sums stay finite and exact. */
  burst.in = malloc((size_t)burst.count * (size_t)element);
  burst.out = calloc((size_t)burst.count, (size_t)element);
  for (int i = 0; i < burst.count; ++i) {
    if (bf16) {
      ((uint16_t*)burst.in)[i] = 0x3F80u;
    } else {
      ((float*)burst.in)[i] = 1.0f;
    }
  }
  double* times = calloc((size_t)reps, sizeof(double));
  for (int w = 0; w < warmup; ++w)
    for (int i = 0; i < ops; ++i) allreduce(&burst);
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int i = 0; i < ops; ++i) allreduce(&burst);
    double mine = (MPI_Wtime() - start) * 1e6, slowest = 0;
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    times[r] = slowest;
  }
  if (rank == 0) {
    qsort(times, (size_t)reps, sizeof(double), by_value);
    printf("%.4f %.4f\n", times[reps / 2] / ops, times[0] / ops);
  }
  if (watching) {
    atomic_store(&watch_stop, 1);
    pthread_join(watchdog, NULL);
  }
  if (bf16) MPI_Op_free(&burst.op);
  free(burst.in);
  free(burst.out);
  free(times);
  MPI_Finalize();
  return 0;
}
