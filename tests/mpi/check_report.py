#!/usr/bin/env python3
"""Checks a k25comm output directory: report.json fields per the schema, exact byte counts, wrong == 0, journal."""
import argparse
import json
import re
import math
import sys

STATS = {"min", "p50", "p90", "p99", "max", "mean"}


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--ranks", type=int, required=True)
    parser.add_argument("--console")
    parser.add_argument("--dtype", default="bf16")
    parser.add_argument("--in-place", action="store_true")
    parser.add_argument("--copies", default="per_rank")
    parser.add_argument("--routing", default="zipf")
    parser.add_argument("--tokens", default="1,4,16")
    parser.add_argument("--phases", default="allreduce,alltoall")
    parser.add_argument("--expect-slowest", type=int, help="the rank every result must name as slowest")
    parser.add_argument("--expect-note", help="a text one of run.notes must hold")
    args = parser.parse_args()
    phases = []
    for phase in args.phases.split(","):
        phases += ["dispatch", "combine"] if phase == "alltoall" else [phase]
    tokens = [int(t) for t in args.tokens.split(",")]

    with open(f"{args.out}/report.json") as f:
        report = json.load(f)
    check(report["schema_version"] == 4, "schema_version")
    check(report["tool"]["name"] == "k25comm" and report["tool"]["version"], "tool")
    run = report["run"]
    check(run["ranks"] == args.ranks, f"run.ranks {run['ranks']}")
    check(len(run["hosts"]) == args.ranks, "run.hosts has one entry per rank")
    check(run["transport"] == "mpi", "transport mpi")
    check(run["complete"] is True, "run complete")
    check(run["config"]["model"]["name"] == "smoke", "config recorded")
    check(run["config"]["sweep"]["allreduce_dtype"] == args.dtype, "dtype recorded")
    check(run["config"]["sweep"]["in_place"] == args.in_place, "in_place recorded")
    check(run["config"]["routing"]["copies"] == args.copies, "copies recorded")
    check(run["started_at"].endswith("Z") and run["finished_at"] >= run["started_at"], "timestamps")
    check(isinstance(run["env"], dict), "env")
    check(report["topology"]["kind"] == "host", "topology kind host")
    if args.expect_note:
        check(any(args.expect_note in note for note in run["notes"]), f"no note holds {args.expect_note!r}")
    else:
        check(not any("polled with MPI_Test" in note for note in run["notes"]), "the host transport's ops were polled")

    results = report["results"]
    expected = {(phase, t, "eager") for t in tokens for phase in phases}
    got = {(r["phase"], r["tokens"], r["mode"]) for r in results}
    check(got == expected, f"result points {sorted(got)} != {sorted(expected)}")
    hidden = 256
    element = 4 if args.dtype == "fp32" else 2
    for r in results:
        where = f"{r['phase']} T={r['tokens']}"
        for key in ("step_us", "op_us"):
            check(set(r[key]) == STATS, f"{where}: {key} has STATS fields")
            s = r[key]
            check(0 < s["min"] <= s["p50"] <= s["p90"] <= s["p99"] <= s["max"], f"{where}: {key} ordered {s}")
        check(r["wrong"] == 0, f"{where}: wrong = {r['wrong']}")
        check(r["checked"] is True, f"{where}: checked")
        check(r["iterations"] >= 2, f"{where}: iterations")
        check(0 <= r["slowest_rank"] < args.ranks, f"{where}: slowest_rank")
        if args.expect_slowest is not None:
            check(r["slowest_rank"] == args.expect_slowest,
                  f"{where}: slowest_rank {r['slowest_rank']}, expected the late rank {args.expect_slowest}")
            check(r["arrival_lead_us"] > 0, f"{where}: arrival_lead_us {r['arrival_lead_us']}")
        check(r["launch_us"] is None and r["launch_bound"] is False,
              f"{where}: the host transport's launch is its step: launch_us null, not launch-bound")
        check(r["device_only"] is False, f"{where}: device_only")
        check(r["dtype"] == (args.dtype if r["phase"] == "allreduce" else ("fp8" if r["phase"] == "dispatch" else "bf16")),
              f"{where}: dtype {r['dtype']}")
        if r["phase"] == "allreduce":
            check(r["ops_per_step"] == 8, f"{where}: 4 layers x 2 AllReduces")
            check(r["bytes_per_op"] == r["tokens"] * hidden * element, f"{where}: bytes_per_op {r['bytes_per_op']}")
            factor = 2 * (args.ranks - 1) / args.ranks
            check(r["op_us_source"] == "per_op_pass", f"{where}: op_us_source")
        else:
            check(r["ops_per_step"] == 3, f"{where}: 3 MoE layers")
            copy = 256 + 256 // 128 * 4 + 16 if r["phase"] == "dispatch" else 512
            per_rank = r["bytes_per_rank"]
            check(per_rank["max"] >= per_rank["mean"] > 0, f"{where}: bytes_per_rank {per_rank}")
            low = r["tokens"] * copy
            high = r["tokens"] * 4 * copy
            check(low <= per_rank["mean"] <= high, f"{where}: mean bytes per rank {per_rank['mean']} in [{low},{high}]")
            if args.copies == "per_expert":
                check(per_rank["mean"] == r["tokens"] * 4 * copy, f"{where}: per-expert copies give T x k x copy")
            factor = (args.ranks - 1) / args.ranks
            busbw_max = per_rank["max"] / (r["step_us"]["p50"] / r["ops_per_step"] * 1e-6) / 1e9 * factor
            check(math.isclose(r["busbw_max_gbps"], busbw_max, rel_tol=1e-9), f"{where}: busbw_max_gbps")
        algbw_expected = (r["bytes_per_op"] if r["phase"] == "allreduce" else r["bytes_per_rank"]["mean"]) / (
            r["step_us"]["p50"] / r["ops_per_step"] * 1e-6) / 1e9
        check(math.isclose(r["algbw_gbps"], algbw_expected, rel_tol=1e-9), f"{where}: algbw")
        check(math.isclose(r["busbw_gbps"], r["algbw_gbps"] * factor, rel_tol=1e-9), f"{where}: busbw factor")

    serve = report["serve"]
    check(serve["ran"] is False, "serve did not run")

    lines = open(f"{args.out}/journal.jsonl").read().splitlines()
    records = [json.loads(line) for line in lines]
    check(records[0]["type"] == "run_start" and records[0]["schema_version"] == 4, "journal starts with run_start")
    check(records[-1]["type"] == "run_end" and records[-1]["complete"] is True, "journal ends with run_end")
    journaled = [rec["result"] for rec in records if rec["type"] == "result"]
    check(journaled == results, "journal results equal report.json results")

    for name in ("report.md", "trace.json"):
        with open(f"{args.out}/{name}") as f:
            check(len(f.read()) > 100, f"{name} written")
    trace = json.load(open(f"{args.out}/trace.json"))
    check(len(trace["traceEvents"] if isinstance(trace, dict) else trace) > 0, "trace has events")
    # Each point's timed trial: one burst slice per rank; the slowest rank's burst is that trial's step, the
    # median trial: with an odd number of trials exactly step_us.p50.
    names = {e["pid"]: e["args"]["name"] for e in trace["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name"}
    by_point = {(r["phase"], r["tokens"], r["mode"]): r for r in results}
    for pid, name in names.items():
        point_phase, point_tokens, point_mode = name.split(" ")
        r = by_point[(point_phase, int(point_tokens[2:]), point_mode)]
        bursts = [e for e in trace["traceEvents"] if e["ph"] == "X" and e["pid"] == pid and " burst (" in e["name"]]
        check(len(bursts) == args.ranks, f"{name}: one timed-trial burst per rank in trace.json")
        slowest = max(e["dur"] for e in bursts)
        check(r["step_us"]["min"] <= slowest <= r["step_us"]["max"], f"{name}: traced step within the measured ones")
        if r["iterations"] % 2 == 1:
            check(math.isclose(slowest, r["step_us"]["p50"], rel_tol=1e-9), f"{name}: traced trial is the median step")
        enqueue = [e for e in trace["traceEvents"] if e["ph"] == "X" and e["pid"] == pid and e["name"] == "enqueue burst"]
        check(not enqueue, f"{name}: no enqueue slices on the host transport (its launch is the step)")
        ops = [e for e in trace["traceEvents"] if e["ph"] == "X" and e["pid"] == pid and " burst (" not in e["name"]]
        check(len(ops) == args.ranks * r["ops_per_step"], f"{name}: per-op pass slices, one per op and rank")
        check(all(e["args"]["bytes"] > 0 or r["phase"] != "allreduce" for e in ops), f"{name}: bytes in op slices")

    # results.csv: one row per point, columns named as in report.json.
    import csv
    with open(f"{args.out}/results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    check(len(rows) == len(results), f"results.csv has {len(rows)} rows for {len(results)} results")
    for row, r in zip(rows, results):
        check((row["phase"], int(row["tokens"]), row["mode"]) == (r["phase"], r["tokens"], r["mode"]),
              "results.csv rows follow report.json")
        check(math.isclose(float(row["step_us.p50"]), r["step_us"]["p50"]), "results.csv step_us.p50")
    check(len(report["headline"]) == 1, "one headline without serve")
    if len(tokens) > 1 and "allreduce" in phases:
        check(report["headline"][0].startswith(f"AllReduce burst per decode step ") and
              f" at T={tokens[0]} to " in report["headline"][0] and
              f"; {len(tokens)} token counts, one line each" in report["headline"][0], report["headline"][0])

    if args.console:
        console = open(args.console).read()
        check("busbw" in console and "allreduce" in console, "console table printed")
        if "allreduce" in phases:
            rows = re.findall(r"^ +allreduce +\d", console, re.MULTILINE)
            check(len(rows) == len(tokens), "one console row per AllReduce point")
        points = len(phases) * len(tokens)
        check(f"# sweep: {points} points ({len(tokens)} token counts x {len(phases)} phase{'s' if len(phases) > 1 else ''} x 1 mode)" in console,
              "the sweep's point count")
        for name in ("journal.jsonl", "report.json", "report.md", "results.csv", "trace.json"):
            check(f"# wrote {args.out}/{name}" in console, f"the console lists {name}")
        if "allreduce" in phases:
            check(console.count("# headline: ") == 1, "one headline on the console")
            if len(tokens) > 1:
                check(f"# per token count: T={tokens[0]}: AllReduce burst" in console, "the per-T lines")
    print(f"ok: {len(results)} results, {len(records)} journal lines, wrong == 0 everywhere")


if __name__ == "__main__":
    main()
