#!/usr/bin/env python3
"""The table and bands of tools/bench-nccl: k25comm's per-op figures against nccl-tests', read from WORK.

Banded rows compare like with like: the same NCCL call at the same bytes, on the same clock, the same statistic.
  k25comm: op_us p50, its per-op pass (CUDA events recorded between back-to-back ops, each op's span, max over
           ranks per op); nccl-tests: out_of_place_per_iter p50_us of -I 1 (CUDA events around each iteration,
           max over process rows), read from its -J JSON.
Rows printed for reference only, not banded (the clocks differ): graph mode, k25comm's step p50 / ops (CUDA events
around one replay) beside nccl-tests -G (host wall time of the graph launches and one synchronization, per op).
Runs WORK/{k25,k25kinds,k25reg1}-RANKS/report.json and WORK/NAME.json or NAME.txt of nccl-tests, as bench-nccl
names them. Exits 1 when a banded ratio is outside BAND, a result has wrong elements, or nothing was compared.
"""
import argparse
import json
import os
import re
import sys

from band import parse_band


def per_iteration_p50(path):
    """size -> out-of-place per-iteration p50 (us) from nccl-tests' -J JSON; {} when there is none."""
    if not os.path.exists(path):
        return {}
    try:
        data = json.load(open(path))
    except ValueError:
        return {}
    found = {}

    def walk(node):
        if isinstance(node, dict):
            per_iter = node.get("out_of_place_per_iter")
            if "size" in node and isinstance(per_iter, dict) and "p50_us" in per_iter:
                found[int(node["size"])] = float(per_iter["p50_us"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(data)
    return found


def table_time(path):
    """size -> out-of-place time (us) from nccl-tests' printed table; {} when it did not run."""
    times = {}
    if not os.path.exists(path):
        return times
    for line in open(path, errors="replace"):
        fields = line.split()
        if len(fields) >= 9 and fields[0].isdigit() and re.match(r"^[0-9.]+$", fields[5]):
            times[int(fields[0])] = float(fields[5])
    return times


def k25_results(work, ranks, runs):
    """(phase, bytes, mode) -> result, and the first report found."""
    rows, first = {}, None
    for run in runs:
        path = os.path.join(work, f"{run}-{ranks}", "report.json")
        if not os.path.exists(path):
            continue
        report = json.load(open(path))
        first = first or report
        for r in report["results"]:
            size = r["bytes_per_op"] if "bytes_per_op" in r else round(r["bytes_per_rank"]["mean"])
            rows[(r["phase"], size, r["mode"])] = r
    return rows, first


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("work", metavar="WORK", help="bench-nccl's work folder")
    parser.add_argument("band", metavar="BAND", type=parse_band, help='"LOW,HIGH" of the banded ratios')
    parser.add_argument("rank_list", metavar="RANKS", nargs="+", help="the rank counts run (e.g. 1 8)")
    args = parser.parse_args(argv)
    work, band, rank_list = args.work, args.band, args.rank_list
    outside, compared = 0, 0
    banded_clock = ("k25comm op_us p50 (CUDA events between back-to-back ops, max over ranks) vs nccl-tests -I 1 "
                    "per-iteration p50 (CUDA events around each iteration, max over ranks)")
    reference_clock = ("k25comm step p50 / ops (CUDA events around one graph replay) vs nccl-tests -G time (host "
                       "wall of the graph launches and one sync, per op)")
    for ranks in rank_list:
        # (title, k25comm runs, rows): row = (phase, mode, label, reference file, banded)
        # One rank: the combine is grouped ncclSend/ncclRecv to itself, as sendrecv_perf's is; alltoall_perf
        # calls ncclAlltoAll, a one-rank copy inside NCCL, so it is no reference for it.
        kinds = [("allreduce", "all_reduce", "all_reduce"), ("allgather", "all_gather", "all_gather"),
                 ("reducescatter", "reduce_scatter", "reduce_scatter")]
        if ranks == "1":
            kinds.insert(1, ("combine", "sendrecv", "sendrecv"))
        rows = []
        for phase, prefix, label in kinds:
            rows.append((phase, "eager", f"{label} -I1", f"{prefix}-{ranks}-eager.json", True))
            rows.append((phase, "graph", f"{label} -G100", f"{prefix}-{ranks}-graph.txt", False))
        sections = [("", ("k25", "k25kinds"), rows)]
        if ranks == "1":
            sections.append((", --nccl-register local vs nccl-tests -R 1", ("k25reg1",),
                             [("allreduce", "eager", "all_reduce -R1 -I1", "all_reduce-reg1-1-eager.json", True),
                              ("allreduce", "graph", "all_reduce -R1 -G100", "all_reduce-reg1-1-graph.txt", False)]))
        for title, runs, refs in sections:
            results, report = k25_results(work, ranks, runs)
            if report is None:
                print(f"{ranks} rank(s){title}: k25comm produced no report (see its log)")
                outside += 1
                continue
            topo = report["topology"]
            gpu = topo["gpus"][0]["name"] if topo.get("gpus") else "?"
            print(f"\n{ranks} rank(s){title}, {topo['kind']}: k25comm {report['tool']['version']} "
                  f"({report['tool']['git_sha']}), NCCL {topo.get('nccl_version')}, {gpu}")
            print(f"{'k25comm':13} {'bytes':>10} {'mode':6} {'k25 us':>9} {'nccl-tests':>20} {'us':>9} {'ratio':>7}")
            for phase, mode, ref_name, ref_file, banded in refs:
                path = os.path.join(work, ref_file)
                ref = per_iteration_p50(path) if banded else table_time(path)
                for (p, size, m), r in sorted(results.items(), key=lambda kv: (kv[0][0], kv[0][2], kv[0][1])):
                    if p != phase or m != mode or size not in ref:
                        continue
                    ours = r["op_us"]["p50"] if banded else r["step_us"]["p50"] / r["ops_per_step"]
                    q = ours / ref[size]
                    flag = ""
                    if banded:
                        compared += 1
                        if not band[0] <= q <= band[1]:
                            flag = f"  <-- outside {band[0]:.2f}-{band[1]:.2f}"
                    else:
                        flag = "  (reference only: clocks differ)"
                    if r["wrong"]:
                        flag += f"  WRONG {r['wrong']}"
                    not_per_op = banded and r.get("op_us_source") != "per_op_pass"
                    if not_per_op:
                        flag += f"  op_us from {r.get('op_us_source')}, not the per-op pass"
                    outside += flag.startswith("  <--") or bool(r["wrong"]) or not_per_op
                    print(f"{phase:13} {size:10d} {mode:6} {ours:9.2f} {ref_name:>20} {ref[size]:9.2f} {q:7.3f}{flag}")
    print(f"\nbanded rows: {banded_clock}")
    print(f"reference rows: {reference_clock}")
    if compared == 0:
        print("no banded figure could be compared (k25comm or nccl-tests did not run: see the logs)")
        return 1
    print(f"{compared} banded ratio(s), {outside} outside {band[0]:.2f}-{band[1]:.2f} or wrong")
    return 1 if outside else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
