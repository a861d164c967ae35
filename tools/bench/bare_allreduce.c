/* The baseline of tools/bench-host-allreduce: a bare AllReduce burst (sum) timed with MPI_Wtime.
 * Each repetition is a barrier then `ops` back-to-back AllReduces; its time is the max over ranks; the p50 of
 * repetitions divided by `ops` is printed as the per-op time, in microseconds.
 *   DTYPE fp32: MPI_FLOAT with MPI_SUM.
 *   DTYPE bf16: 16-bit words with a user-defined MPI_Op, the same arithmetic as k25comm's (add in fp32, round to
 *               nearest even, NaN kept quiet), written branch-free so that the compiler vectorises it (build
 *               this file at -O3).
 *   MODE blocking:    MPI_Allreduce.
 *   MODE nonblocking: MPI_Iallreduce completed by polling MPI_Test, as k25comm's host transport waits (it reads
 *                     the clock every 1024 polls to bound the wait; so does this loop, against no deadline).
 * usage: bare_allreduce DTYPE MODE BYTES REPS OPS WARMUP */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

typedef struct {
  void *in, *out;
  int count;
  MPI_Datatype type;
  MPI_Op op;
  int nonblocking;
} Burst;

static void allreduce(const Burst* burst) {
  if (!burst->nonblocking) {
    MPI_Allreduce(burst->in, burst->out, burst->count, burst->type, burst->op, MPI_COMM_WORLD);
    return;
  }
  MPI_Request request;
  MPI_Iallreduce(burst->in, burst->out, burst->count, burst->type, burst->op, MPI_COMM_WORLD, &request);
  int done = 0;
  for (unsigned polls = 1; !done; ++polls) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (!done && (polls & 1023u) == 0) (void)MPI_Wtime(); /* the deadline check k25comm makes */
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc != 7 || (strcmp(argv[1], "fp32") != 0 && strcmp(argv[1], "bf16") != 0) ||
      (strcmp(argv[2], "blocking") != 0 && strcmp(argv[2], "nonblocking") != 0)) {
    fprintf(stderr, "usage: bare_allreduce fp32|bf16 blocking|nonblocking BYTES REPS OPS WARMUP\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int bf16 = strcmp(argv[1], "bf16") == 0;
  const int element = bf16 ? 2 : 4;
  const int reps = atoi(argv[4]), ops = atoi(argv[5]), warmup = atoi(argv[6]);
  Burst burst;
  burst.count = atoi(argv[3]) / element;
  burst.nonblocking = strcmp(argv[2], "nonblocking") == 0;
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
    printf("%.4f\n", times[reps / 2] / ops);
  }
  if (bf16) MPI_Op_free(&burst.op);
  free(burst.in);
  free(burst.out);
  free(times);
  MPI_Finalize();
  return 0;
}
