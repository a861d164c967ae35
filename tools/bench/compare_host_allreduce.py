#!/usr/bin/env python3
"""The table and bands of tools/bench-host-allreduce, from its figures file.

usage: compare_host_allreduce.py FIGURES ROUNDS
FIGURES lines: "RANKS DTYPE BYTES ROUND KIND VALUE" with KIND one of bare_blocking, bare_blocking_min,
paired_plain, paired_watched, paired_ratio, bare_nonblocking, k25_step_per_op, k25_op_p50 (microseconds per op,
MPI_Wtime on every side; a ratio for paired_ratio).
Two bands, per (ranks, dtype, bytes); exit 1 when a figure is outside or missing:
  watched / plain:  the median over rounds of bare_allreduce's paired ratio (watched over plain bursts, pair by
                    pair in one process: what k25comm's watchdog costs), within 0.97 .. 1.03.
  k25comm / bare:   the median over rounds of k25comm's step p50 / ops over the bare blocking burst's p50 of the
                    same round (both at MPI_THREAD_MULTIPLE, MPI_Wtime, max over ranks), within 1/1.10 .. 1.10.
Printed, not banded: non-blocking / blocking (MPI_Iallreduce polled, k25comm's way without MPI_THREAD_MULTIPLE),
and k25comm's op p50 (per-op pass, max over ranks per op: above the burst's mean by the ranks' skew).
"""
import collections
import statistics
import sys

WATCH_BAND = (0.97, 1.03)
K25_BAND = (1 / 1.10, 1.10)


def main(argv):
    figures, rounds = argv[1], argv[2]
    values = collections.defaultdict(dict)  # (ranks, dtype, bytes) -> {(kind, round): value}
    for line in open(figures):
        ranks, dtype, size, round_no, kind, value = line.split()
        values[(int(ranks), dtype, int(size))][(kind, int(round_no))] = float(value)
    print(f"{'ranks':>5} {'dtype':>5} {'bytes':>9} {'blk p50':>10} {'watched/plain':>13} {'nb/blk':>7} "
          f"{'k25 step/op':>12} {'k25/bare':>9} {'k25 op p50':>11} {'op/bare':>8}")
    outside = []
    for key in sorted(values):
        got = values[key]
        round_nos = sorted({r for (_, r) in got})

        def per_round(kind):
            return [got[(kind, r)] for r in round_nos if (kind, r) in got]

        def ratios(kind, reference):
            return [got[(kind, r)] / got[(reference, r)] for r in round_nos
                    if (kind, r) in got and (reference, r) in got and got[(reference, r)] > 0]

        paired = per_round("paired_ratio")
        watch = statistics.median(paired) if paired else None
        k25 = ratios("k25_step_per_op", "bare_blocking")
        k25 = statistics.median(k25) if k25 else None
        if watch is None:
            outside.append(f"no paired watched/plain figure at {key}")
            watch = float("nan")
        if k25 is None:
            outside.append(f"no k25comm/bare figure at {key}")
            k25 = float("nan")
        nb = ratios("bare_nonblocking", "bare_blocking")
        op = ratios("k25_op_p50", "bare_blocking")
        blk = per_round("bare_blocking")
        flags = ""
        if not WATCH_BAND[0] <= watch <= WATCH_BAND[1]:
            outside.append(f"watched/plain {watch:.3f} at {key}")
            flags += f" <- watched/plain outside {WATCH_BAND[0]:.2f}..{WATCH_BAND[1]:.2f}"
        if not K25_BAND[0] <= k25 <= K25_BAND[1]:
            outside.append(f"k25/bare {k25:.3f} at {key}")
            flags += " <- k25/bare outside 1/1.10..1.10"
        step = per_round("k25_step_per_op")
        ops = per_round("k25_op_p50")
        print(f"{key[0]:>5} {key[1]:>5} {key[2]:>9} {statistics.median(blk) if blk else float('nan'):>10.2f} "
              f"{watch:>13.3f} {statistics.median(nb) if nb else float('nan'):>7.3f} "
              f"{statistics.median(step) if step else float('nan'):>12.2f} {k25:>9.3f} "
              f"{statistics.median(ops) if ops else float('nan'):>11.2f} "
              f"{statistics.median(op) if op else float('nan'):>8.3f}{flags}")
    print(f"# microseconds per op (MPI_Wtime, max over ranks, every side at MPI_THREAD_MULTIPLE), medians over {rounds} "
          "rounds. blk: bare MPI_Allreduce burst (30 repetitions of 122 ops, 10 at 3,670,016 B; p50). watched/plain: bare bursts with and "
          "without k25comm's watchdog, paired in one process (median pair ratio). nb: MPI_Iallreduce + MPI_Test (not "
          "banded).")
    print("# k25 step/op: k25comm step_us p50 / ops_per_step, against blk of the same round; k25 op p50: per-op pass, "
          "max over ranks per op (not banded).")
    if outside:
        print("bench-host-allreduce: OUTSIDE THE BAND: " + "; ".join(outside))
        return 1
    print("bench-host-allreduce: every ratio within its band")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
