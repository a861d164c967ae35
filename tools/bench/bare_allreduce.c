/* The baseline of tools/bench-host-allreduce: a bare AllReduce burst (sum) timed with MPI_Wtime, at the
 * MPI thread level k25comm runs at (MPI_THREAD_MULTIPLE, src/main.cpp), so that its cost is on both sides.
 * Each repetition is a barrier then `ops` back-to-back AllReduces, each between two MPI_Wtime reads as in
 * k25comm's per-op pass; an op's time is the max over ranks (reduced after the last repetition). The bands
 * use per-op figures (the median or the fastest of all ops of all repetitions): an op that a shared machine
 * preempted moves a burst's total, not those.
 *   DTYPE fp32: MPI_FLOAT with MPI_SUM.
 *   DTYPE bf16: 16-bit words with a user-defined MPI_Op, the same arithmetic as k25comm's (add in fp32,
 *     round to nearest even, NaN kept quiet), written branch-free so that the compiler vectorises it
 *     (build at -O3).
 *   MODE blocking: MPI_Allreduce. Prints "OP_P50 OP_MIN BURST_P50": the per-op p50 and minimum, and the
 *     p50 of the repetitions' totals divided by `ops` (microseconds per op).
 *   MODE paired: what k25comm's watchdog (src/common/call_watchdog.hpp) costs per op, in one burst so that
 *     load and frequency changes fall on both sides alike: ops alternate watched (armed and disarmed as
 *     k25comm does it: a relaxed store, two sequentially consistent atomic additions and a load) and plain,
 *     the order shifting from burst to burst, while a monitor thread looks at the atomic sequence number
 *     every 100 ms throughout (its ten wake-ups a second fall on both kinds). Prints "PLAIN_OP_P50
 *     WATCHED_OP_P50 RATIO": the per-op p50 of each kind and watched / plain.
 *   MODE nonblocking: MPI_Iallreduce completed by polling MPI_Test (the clock read every 256 polls),
 *     k25comm's way where the library lacks MPI_THREAD_MULTIPLE. Open MPI serves it from libnbc, whose
 *     algorithms differ from the blocking call's: this mode shows by how much. Prints as blocking does.
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

static double median(double* values, int n) {
  qsort(values, (size_t)n, sizeof(double), by_value);
  return values[n / 2];
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
} Burst;

/* The watchdog's state, as in k25comm's common/call_watchdog.hpp. */
static atomic_uint_fast64_t watch_sequence;
static _Atomic(const void*) watch_point;
static atomic_bool watch_firing;
static pthread_mutex_t watch_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watch_wake = PTHREAD_COND_INITIALIZER;
static int watch_active, watch_stop; /* guarded by watch_mutex */

static void* watch(void* unused) {
  (void)unused;
  uint_fast64_t seen = 0;
  pthread_mutex_lock(&watch_mutex);
  while (!watch_stop) {
    if (!watch_active) {
      pthread_cond_wait(&watch_wake, &watch_mutex);
      continue;
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 100 * 1000 * 1000;
    if (until.tv_nsec >= 1000000000L) {
      until.tv_sec += 1;
      until.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&watch_wake, &watch_mutex, &until);
    seen = atomic_load(&watch_sequence); /* never fires: no deadline in a benchmark */
  }
  pthread_mutex_unlock(&watch_mutex);
  (void)seen;
  return NULL;
}

static void set_watching(int active, int stop) {
  pthread_mutex_lock(&watch_mutex);
  watch_active = active;
  watch_stop = stop;
  pthread_cond_signal(&watch_wake);
  pthread_mutex_unlock(&watch_mutex);
}

static void allreduce(const Burst* burst, enum Mode mode) {
  if (mode == blocking) {
    MPI_Allreduce(burst->in, burst->out, burst->count, burst->type, burst->op, MPI_COMM_WORLD);
    return;
  }
  if (mode == watched) {
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

/* One repetition: barrier, `ops` AllReduces, each timed alone into times[0..ops) (this rank's, in us). */
static void repetition(const Burst* burst, enum Mode mode, int ops, double* times) {
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < ops; ++i) {
    const double start = MPI_Wtime();
    allreduce(burst, mode);
    times[i] = (MPI_Wtime() - start) * 1e6;
  }
}

/* Each op's time as the max over ranks, in place on rank 0 (collective). */
static void slowest_rank_per_op(double* times, int n) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Reduce(rank == 0 ? MPI_IN_PLACE : times, times, n, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
}

/* The median over `reps` repetitions of a repetition's total per op (times: max over ranks per op). */
static double burst_p50(const double* times, int reps, int ops) {
  double* bursts = calloc((size_t)reps, sizeof(double));
  for (int r = 0; r < reps; ++r)
    for (int i = 0; i < ops; ++i) bursts[r] += times[r * ops + i] / ops;
  const double p50 = median(bursts, reps);
  free(bursts);
  return p50;
}

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  const int paired = argc > 2 && strcmp(argv[2], "paired") == 0;
  const int polled = argc > 2 && strcmp(argv[2], "nonblocking") == 0;
  if (argc != 7 || (strcmp(argv[1], "fp32") != 0 && strcmp(argv[1], "bf16") != 0) ||
      (strcmp(argv[2], "blocking") != 0 && !paired && !polled)) {
    fprintf(stderr, "usage: bare_allreduce fp32|bf16 blocking|paired|nonblocking BYTES REPS OPS WARMUP\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (provided != MPI_THREAD_MULTIPLE) {
    fprintf(stderr, "bare_allreduce: the MPI library does not provide MPI_THREAD_MULTIPLE\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  pthread_t watchdog;
  if (paired) {
    pthread_create(&watchdog, NULL, watch, NULL);
    set_watching(1, 0);
  }
  const int bf16 = strcmp(argv[1], "bf16") == 0;
  const int element = bf16 ? 2 : 4;
  const int reps = atoi(argv[4]), ops = atoi(argv[5]), warmup = atoi(argv[6]);
  Burst burst;
  burst.count = atoi(argv[3]) / element;
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
  const enum Mode plain = polled ? nonblocking : blocking;
  for (int w = 0; w < warmup; ++w)
    for (int i = 0; i < ops; ++i) allreduce(&burst, plain);
  const int n = reps * ops;
  double* plain_us = calloc((size_t)n, sizeof(double));
  double* watched_us = calloc((size_t)n, sizeof(double));
  for (int r = 0; r < reps; ++r) {
    if (!paired) {
      repetition(&burst, plain, ops, plain_us + r * ops);
      continue;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < ops; ++i) {
      const double start = MPI_Wtime();
      allreduce(&burst, (i + r) % 2 == 0 ? watched : blocking);
      plain_us[r * ops + i] = (MPI_Wtime() - start) * 1e6;
    }
  }
  slowest_rank_per_op(plain_us, n);
  if (rank == 0 && paired) {
    int kinds[2] = {0, 0}; /* plain, watched */
    for (int r = 0; r < reps; ++r)
      for (int i = 0; i < ops; ++i) {
        const int was_watched = (i + r) % 2 == 0;
        double* into = was_watched ? watched_us : plain_us;
        into[kinds[was_watched]++] = plain_us[r * ops + i]; /* in place: the write never passes the read */
      }
    const double plain_p50 = median(plain_us, kinds[0]), watched_p50 = median(watched_us, kinds[1]);
    printf("%.4f %.4f %.4f\n", plain_p50, watched_p50, watched_p50 / plain_p50);
  } else if (rank == 0) {
    const double bursts = burst_p50(plain_us, reps, ops); /* before median() sorts the ops */
    const double p50 = median(plain_us, n);               /* sorts: [0] is then the fastest op */
    printf("%.4f %.4f %.4f\n", p50, plain_us[0], bursts);
  }
  if (paired) {
    set_watching(0, 1);
    pthread_join(watchdog, NULL);
  }
  if (bf16) MPI_Op_free(&burst.op);
  free(burst.in);
  free(burst.out);
  free(plain_us);
  free(watched_us);
  MPI_Finalize();
  return 0;
}
