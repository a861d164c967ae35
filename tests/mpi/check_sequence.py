#!/usr/bin/env python3
"""Checks a run of configs/smoke-sequence.yaml: an explicit op sequence (AllReduce, AllGather, ReduceScatter) and
the allgather_reducescatter expert-parallel backend, every point exactly checked (wrong == 0), with the kinds, op
counts, sizes (nccl-tests' counting) and bus-bandwidth factors the config implies."""
import argparse
import json
import math
import sys


def check(ok, what):
    if not ok:
        print(f"FAIL: {what}")
        sys.exit(1)


def whole_parts(size, element, ranks):
    unit = element * ranks
    return (size + unit - 1) // unit * unit


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--ranks", type=int, required=True)
    parser.add_argument("--tokens", default="1,4,16")
    args = parser.parse_args()
    n = args.ranks
    tokens = [int(t) for t in args.tokens.split(",")]
    report = json.load(open(f"{args.out}/report.json"))
    check(report["run"]["complete"] is True, "run complete")
    check(report["run"]["config"]["model"]["sequence"][2]["name"] == "logits", "sequence recorded in the config")
    check(report["run"]["config"]["expert_parallel"]["backend"] == "allgather_reducescatter", "backend recorded")
    # phase: (kind, ops per step, size at T tokens)
    expected = {
        "allreduce": ("allreduce", 1 + 2 * 4, lambda t: 512 * t, 2.0 * (n - 1) / n),
        "allgather": ("allgather", 1, lambda t: whole_parts(2048 * t, 2, n), (n - 1) / n),
        "reducescatter": ("reducescatter", 2, lambda t: whole_parts(4096, 2, n), (n - 1) / n),
        "dispatch": ("allgather", 3, lambda t: n * t * 256 * 2, (n - 1) / n),
        "combine": ("reducescatter", 3, lambda t: n * t * 256 * 2, (n - 1) / n),
    }
    got = {(r["phase"], r["tokens"]) for r in report["results"]}
    want = {(p, t) for p in expected for t in tokens}
    check(got == want, f"result points {sorted(got)} != {sorted(want)}")
    for r in report["results"]:
        kind, ops, size, factor = expected[r["phase"]]
        where = f"{r['phase']} T={r['tokens']}"
        check(r["kind"] == kind, f"{where}: kind {r['kind']} != {kind}")
        check(r["ops_per_step"] == ops, f"{where}: {r['ops_per_step']} ops, expected {ops}")
        check(r["bytes_per_op"] == size(r["tokens"]), f"{where}: bytes_per_op {r['bytes_per_op']} != {size(r['tokens'])}")
        check("bytes_per_rank" not in r, f"{where}: equal sizes have no per-rank bytes")
        check(r["wrong"] == 0 and r["checked"] is True, f"{where}: wrong = {r['wrong']}, checked {r['checked']}")
        check(math.isclose(r["busbw_gbps"], r["algbw_gbps"] * factor, rel_tol=1e-9), f"{where}: busbw factor")
    md = open(f"{args.out}/report.md").read()
    for title in ("### allgather (AllGather)", "### reducescatter (ReduceScatter)", "### dispatch (AllGather)",
                  "### combine (ReduceScatter)"):
        check(title in md, f"report.md lacks {title!r}")
    print(f"ok: {len(report['results'])} points of 5 phases on {n} ranks, every kind exactly checked")


if __name__ == "__main__":
    main()
