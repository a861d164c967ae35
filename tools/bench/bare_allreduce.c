/* The baseline of tools/bench-host-allreduce: a bare MPI_Allreduce loop (fp32, sum) timed with MPI_Wtime.
 * Each repetition is a barrier then `ops` back-to-back AllReduces; its time is the max over ranks; the p50 of
 * repetitions divided by `ops` is printed as the per-op time, in microseconds.
 * usage: bare_allreduce BYTES REPS OPS WARMUP */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc != 5) {
    fprintf(stderr, "usage: bare_allreduce BYTES REPS OPS WARMUP\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int count = atoi(argv[1]) / 4, reps = atoi(argv[2]), ops = atoi(argv[3]), warmup = atoi(argv[4]);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  float* in = calloc((size_t)count, sizeof(float));
  float* out = calloc((size_t)count, sizeof(float));
  double* times = calloc((size_t)reps, sizeof(double));
  for (int w = 0; w < warmup; ++w)
    for (int i = 0; i < ops; ++i) MPI_Allreduce(in, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int i = 0; i < ops; ++i) MPI_Allreduce(in, out, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double mine = (MPI_Wtime() - start) * 1e6, slowest = 0;
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    times[r] = slowest;
  }
  if (rank == 0) {
    qsort(times, (size_t)reps, sizeof(double), by_value);
    printf("%.4f\n", times[reps / 2] / ops);
  }
  free(in);
  free(out);
  free(times);
  MPI_Finalize();
  return 0;
}
