#!/usr/bin/env python3
"""Checks a k25comm run with --allreduce-backends: every backend's AllReduce rows at every token count and mode,
wrong == 0 and checked for each (or the one --expect-wrong names: WRONG, never best), rows a backend did not run
saying why (--expect-not-run BACKEND:TOKENS), the backends' table with a best per token count, the headline's
backends sentence, results.csv's backend column, and the console's rows."""
import argparse
import csv
import json
import sys


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--ranks", type=int, required=True)
    parser.add_argument("--backends", required=True)
    parser.add_argument("--tokens", required=True)
    parser.add_argument("--modes", default="eager")
    parser.add_argument("--console")
    parser.add_argument("--epilogue", action="store_true", help="the run had --allreduce-epilogue add-rmsnorm")
    parser.add_argument("--expect-wrong", help="the backend made wrong by --inject-wrong")
    parser.add_argument("--expect-not-run", action="append", default=[], metavar="BACKEND:TOKENS")
    parser.add_argument("--incomplete", action="store_true", help="the run ended early (a hang): rows so far only")
    args = parser.parse_args()
    report = json.load(open(f"{args.out}/report.json"))
    run = report["run"]
    if run["ranks"] != args.ranks:
        fail(f"ranks {run['ranks']}, expected {args.ranks}")
    if report["schema_version"] != 4:
        fail(f"schema_version {report['schema_version']}")
    own = run["transport"]
    backends = args.backends.split(",")
    tokens = [int(t) for t in args.tokens.split(",")]
    modes = args.modes.split(",")
    not_run = {(b, int(t)) for b, t in (x.split(":") for x in args.expect_not_run)}
    rows = {}
    for r in report["results"]:
        if r["phase"] == "allreduce":
            if r.get("backend") != own:
                fail(f"a row of results has backend {r.get('backend')}, not the transport's {own}")
            rows[(own, r["tokens"], r["mode"])] = r
    for r in report.get("backend_results", []):
        if r.get("backend") in (None, own):
            fail(f"backend_results holds a row of the transport's own backend {own}")
        rows[(r["backend"], r["tokens"], r["mode"])] = r
    if args.incomplete:
        if run["complete"]:
            fail("the run is not marked incomplete")
        if not rows:
            fail("no row measured before the run ended")
        print(f"ok: incomplete run, {len(rows)} rows kept: {sorted(rows)}")
        return
    expected = {(b, t, m) for b in backends for t in tokens for m in modes}
    if set(rows) != expected:
        fail(f"rows {sorted(rows)} != expected {sorted(expected)}")
    for (backend, t, mode), r in sorted(rows.items()):
        if (backend, t) in not_run:
            if not r.get("not_run"):
                fail(f"{backend} T={t} {mode} ran, expected a row saying why not")
            print(f"{backend:13} T={t:<4} {mode:6} not run: {r['not_run']}")
            continue
        if r.get("not_run"):
            fail(f"{backend} T={t} {mode} not run: {r['not_run']}")
        if not r["checked"]:
            fail(f"{backend} T={t} {mode} not checked")
        if backend == args.expect_wrong:
            if r["wrong"] == 0:
                fail(f"{backend} T={t} {mode}: wrong 0, expected wrong elements from --inject-wrong")
        elif r["wrong"] != 0:
            fail(f"{backend} T={t} {mode}: {r['wrong']} wrong elements")
        print(f"{backend:13} T={t:<4} {mode:6} wrong {r['wrong']:<6} op p50 {r['op_us']['p50']:10.2f} us")
    table = report.get("allreduce_backends")
    if not table or len(table["tables"]) != len(tokens):
        fail("no backends table per token count in report.json")
    for t in table["tables"]:
        best = t["best"]
        if best == args.expect_wrong:
            fail(f"T={t['tokens']}: the WRONG backend {best} is best")
        if not best:
            fail(f"T={t['tokens']}: no best backend")
    sentences = [h for h in report["headline"] if h.startswith(f"AllReduce burst at T={tokens[0]}:")]
    if not sentences:
        fail(f"no backends sentence in the headline: {report['headline']}")
    if args.expect_wrong and f"{args.expect_wrong} WRONG" not in sentences[0]:
        fail(f"the headline does not mark {args.expect_wrong} WRONG: {sentences[0]}")
    md = open(f"{args.out}/report.md").read()
    if "## AllReduce backends" not in md:
        fail("report.md has no AllReduce backends section")
    with open(f"{args.out}/results.csv") as f:
        csv_backends = {row["backend"] for row in csv.DictReader(f) if row["phase"] == "allreduce"}
    if csv_backends != set(backends):
        fail(f"results.csv backends {sorted(csv_backends)} != {sorted(backends)}")
    if args.epilogue and not any("--allreduce-epilogue add-rmsnorm" in n for n in run["notes"]):
        fail("no note of the epilogue")
    if args.console:
        console = open(args.console).read()
        for backend in backends:
            if backend != own and f" {backend} " not in console:
                fail(f"the console has no row of {backend}")
    print(f"headline: {sentences[0]}")
    print(f"ok: {len(backends)} backends x {len(tokens)} token counts x {len(modes)} modes at {args.ranks} ranks")


if __name__ == "__main__":
    main()
