#!/usr/bin/env python3
"""Checks what a multi-host k25comm run must show (issue 14): hosts and node-local ranks in report.json and
report.md, the topology per host, trace.json and slowest_rank naming ranks and hosts rightly, and (with --link)
the collectives' bytes crossing the emulated hosts' link as TCP. Generic report checks: tests/mpi/check_report.py."""
import argparse
import json
import re
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mpi"))
from check_report import check  # noqa: E402  (the generic report checks' helper)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--hosts", nargs="+", required=True, help="host names in rank order of their first rank")
    parser.add_argument("--ranks-per-host", type=int, required=True)
    parser.add_argument("--link", nargs=4, type=int, metavar=("RX_BYTES", "TX_BYTES", "RX_PACKETS", "TCP_IN_SEGS"),
                        help="counters of the last host's link during the run")
    args = parser.parse_args()
    per_host = args.ranks_per_host
    ranks = per_host * len(args.hosts)
    # mpirun -H a:N,b:N (and srun's block distribution) place ranks host by host.
    expected_hosts = [h for h in args.hosts for _ in range(per_host)]

    report = json.load(open(f"{args.out}/report.json"))
    run, topology = report["run"], report["topology"]
    check(run["ranks"] == ranks, f"run.ranks {run['ranks']} != {ranks}")
    check(run["hosts"] == expected_hosts, f"run.hosts {run['hosts']} != {expected_hosts}")
    expected_topology_hosts = [
        {"name": h, "ranks": list(range(i * per_host, (i + 1) * per_host)), "kind": "host"}
        for i, h in enumerate(args.hosts)
    ]
    got = [{k: h[k] for k in ("name", "ranks", "kind")} for h in topology["hosts"]]
    check(got == expected_topology_hosts, f"topology.hosts {got} != {expected_topology_hosts}")
    if len(args.hosts) > 1:
        check(f"spans {len(args.hosts)} hosts" in topology["link_description"],
              f"topology.link_description does not say the run spans hosts: {topology['link_description']}")

    markdown = open(f"{args.out}/report.md").read()
    check("| host | ranks (node-local order) |" in markdown or len(args.hosts) == 1, "report.md has no per-host table")
    for entry in expected_topology_hosts:
        if len(args.hosts) > 1:
            row = f"| {entry['name']} | {', '.join(str(r) for r in entry['ranks'])} |"
            check(row in markdown, f"report.md lacks the row {row!r}")

    for result in report["results"]:
        slowest = result["slowest_rank"]
        check(0 <= slowest < ranks, f"slowest_rank {slowest} out of range")
        check(run["hosts"][slowest] == expected_hosts[slowest], f"slowest rank {slowest} on the wrong host")

    trace = json.load(open(f"{args.out}/trace.json"))
    events = trace["traceEvents"]
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e.get("name") == "thread_name"}
    check(len(names) > 0, "trace.json names no rank track")
    track_rank = {}
    for (pid, tid), name in names.items():
        match = re.match(r"rank (\d+) \(([^)]*)\): ", name)
        check(match is not None, f"trace track {pid}/{tid} is named {name!r}: not 'rank R (host): ...'")
        rank = int(match.group(1))
        check(0 <= rank < ranks and match.group(2) == expected_hosts[rank],
              f"trace track {pid}/{tid} is named {name!r}: rank {rank} is on {expected_hosts[rank] if rank < ranks else '?'}")
        track_rank[(pid, tid)] = rank
    spans = [e for e in events if e.get("ph") == "X"]
    check(spans and all(track_rank.get((e["pid"], e["tid"])) == e["args"]["rank"] for e in spans),
          "trace spans carry the rank their track names")
    check({e["args"]["rank"] for e in spans} == set(range(ranks)), "trace has spans of every rank")

    if args.link:
        rx, tx, rx_packets, tcp_in = args.link
        # Every AllReduce of N bytes brings at least N bytes into each host (its sum depends on the other host's
        # inputs), so the timed trials alone bound the link's traffic from below, in both directions.
        floor = sum(r["bytes_per_op"] * r["ops_per_step"] * r["iterations"]
                    for r in report["results"] if r["phase"] == "allreduce")
        check(rx >= floor and tx >= floor, f"the link carried {rx} B in, {tx} B out: less than the AllReduces' {floor} B")
        check(tcp_in >= 0.9 * rx_packets, f"{tcp_in} TCP segments of {rx_packets} packets: the traffic is not TCP")
        print(f"link: {rx} B in / {tx} B out >= {floor} B of timed AllReduces; {tcp_in} TCP segments of {rx_packets} packets")
    print(f"ok: {len(args.hosts)} hosts x {per_host} ranks named rightly in report.json, report.md and trace.json")


if __name__ == "__main__":
    main()
