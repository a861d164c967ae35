#!/usr/bin/env python3
"""The table, labels check and band of tools/bench-two-hosts: the same host-transport run on one and on two
emulated hosts (OUT/one-host/report.json, OUT/two-hosts/report.json).

Band: every point's op p50 ratio two hosts / one host must exceed 1.00 (the TCP hop must show); both sides are
MPI_Wtime, per-op pass, max over ranks per op. A ratio at or below it, a missing point, wrong elements or a wrong
label exit 1.
"""
import argparse
import json
import sys


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", metavar="OUT", help="bench-two-hosts' output folder")
    parser.add_argument("h1", metavar="HOST1", help="the first emulated host")
    parser.add_argument("h2", metavar="HOST2", help="the second emulated host")
    parser.add_argument("np", metavar="RANKS", type=int, help="ranks of each run, split evenly over the two hosts")
    args = parser.parse_args(argv)
    out, h1, h2, np = args.out, args.h1, args.h2, args.np
    half = np // 2
    one = json.load(open(f"{out}/one-host/report.json"))
    two = json.load(open(f"{out}/two-hosts/report.json"))
    problems = []

    def expect(condition, message):
        if not condition:
            problems.append(message)

    def label(report):
        hosts = report["topology"]["hosts"]
        return "; ".join(f"{h['name']}: ranks {','.join(map(str, h['ranks']))} ({h['kind']})" for h in hosts)

    expect([h["name"] for h in one["topology"]["hosts"]] == [h1], f"one-host run lists {label(one)}")
    expect(one["topology"]["hosts"][0]["ranks"] == list(range(np)), "one-host ranks not 0..np-1 in node-local order")
    expect([(h["name"], h["ranks"]) for h in two["topology"]["hosts"]] ==
           [(h1, list(range(half))), (h2, list(range(half, np)))], f"two-host run lists {label(two)}")
    for report in (one, two):
        expect(report["topology"]["kind"] == "host" and all(h["kind"] == "host" for h in report["topology"]["hosts"]),
               "kind is not host")
        expect(report["run"]["transport"] == "mpi", "transport is not mpi")
    expect("spans 2 hosts" in two["topology"]["link_description"], "two-host link description does not name the hop")
    print(f"# one host:  {label(one)}")
    print(f"# two hosts: {label(two)}")
    print(f"# {two['topology']['link_description']}")

    key = lambda r: (r["phase"], r["tokens"], r["mode"])
    base = {key(r): r for r in one["results"]}
    print(f"{'phase':>10} {'tokens':>6} {'bytes':>10} {'op p50 1h':>11} {'op p50 2h':>11} {'ratio':>7} "
          f"{'step/op 1h':>11} {'step/op 2h':>11} {'ratio':>7} {'wrong':>5}")
    for r in two["results"]:
        b = base.get(key(r))
        if b is None:
            problems.append(f"{key(r)} missing in the one-host run")
            continue
        size = r["bytes_per_op"] if r["phase"] == "allreduce" else round(r["bytes_per_rank"]["mean"])
        op_ratio = r["op_us"]["p50"] / b["op_us"]["p50"]
        s1, s2 = b["step_us"]["p50"] / b["ops_per_step"], r["step_us"]["p50"] / r["ops_per_step"]
        print(f"{r['phase']:>10} {r['tokens']:>6} {size:>10} {b['op_us']['p50']:>11.2f} {r['op_us']['p50']:>11.2f} "
              f"{op_ratio:>7.3f} {s1:>11.2f} {s2:>11.2f} {s2 / s1:>7.3f} {r['wrong'] + b['wrong']:>5}")
        expect(op_ratio > 1.0, f"{key(r)}: op p50 ratio {op_ratio:.3f} is not above 1.00")
        expect(r["wrong"] == 0 and b["wrong"] == 0, f"{key(r)}: wrong elements")
    print("# microseconds; op p50: per-op pass, max over ranks per op; step/op: step p50 / ops per step. "
          "1h: all ranks on one host (shared memory), 2h: half on each host (TCP between them).")
    print(f"# reports: {out}/one-host/report.json, {out}/two-hosts/report.json")
    if problems:
        print("bench-two-hosts: OUTSIDE THE BAND or mislabelled: " + "; ".join(problems))
        return 1
    print("bench-two-hosts: the TCP hop shows at every point and both runs are labelled right")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
