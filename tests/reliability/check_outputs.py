#!/usr/bin/env python3
"""Checks what a k25comm run left in its output directory after a failure, a signal or a killed rank.

Prints one line of figures (results, journal bytes) and exits 1 with the reason on a failed check.
"""
import argparse
import json
import os
import sys


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def journal_records(out):
    path = os.path.join(out, "journal.jsonl")
    if not os.path.isfile(path):
        fail(f"{path} is missing")
    records = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as e:
                fail(f"{path}:{number} does not parse ({e}): {line[:120]!r}")
    if not records or records[0].get("type") != "run_start":
        fail(f"{path} does not start with run_start")
    return path, records


def results_of(records):
    return [r["result"] for r in records if r.get("type") == "result"]


def same_points(journaled, report_results, where):
    key = lambda r: (r["phase"], r["tokens"], r["mode"])
    if sorted(map(key, journaled)) != sorted(map(key, report_results)):
        fail(f"{where} holds {sorted(map(key, report_results))}, the journal {sorted(map(key, journaled))}")


def load_report(directory):
    path = os.path.join(directory, "report.json")
    if not os.path.isfile(path):
        fail(f"{path} is missing")
    with open(path) as f:
        return json.load(f)


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", metavar="OUT", help="the run's output directory")
    modes = parser.add_subparsers(dest="mode", required=True, metavar="MODE")
    journal = modes.add_parser("journal", help="every journal line parses; run_start, >= N results")
    journal.add_argument("--min-results", type=int, default=1, metavar="N", help="(default %(default)s)")
    modes.add_parser("interrupted", help="report.json/report.md written, marked incomplete, holding every journaled "
                                         "result; journal ends with run_end")
    modes.add_parser("no-report", help="no report.json (nor a temporary one) in OUT")
    rerendered = modes.add_parser("rerendered", help="`k25comm report` output in DIR holds every journaled result")
    rerendered.add_argument("dir", metavar="DIR")
    return parser.parse_args()


def main():
    args = parse_args()
    out, mode = args.out, args.mode
    if mode == "no-report":
        left = [n for n in os.listdir(out) if n.startswith("report.json")] if os.path.isdir(out) else []
        if left:
            fail(f"{out} holds {left} after a failed run")
        print(f"figures: no report.json in {out}")
        return
    path, records = journal_records(out)
    journaled = results_of(records)
    if mode == "journal":
        minimum = args.min_results
        if len(journaled) < minimum:
            fail(f"{path} holds {len(journaled)} results, expected at least {minimum}")
        print(f"figures: journal {os.path.getsize(path)} bytes, {len(records)} lines, {len(journaled)} results")
    elif mode == "interrupted":
        report = load_report(out)
        run = report["run"]
        if run.get("complete", True):
            fail("report.json says the run is complete")
        if not any(name in run.get("incomplete_reason", "") for name in ("SIGINT", "SIGTERM")):
            fail(f"incomplete_reason does not name the signal: {run.get('incomplete_reason')!r}")
        same_points(journaled, report["results"], "report.json")
        with open(os.path.join(out, "report.md")) as f:
            if "Incomplete run" not in f.read():
                fail("report.md does not say the run is incomplete")
        if records[-1].get("type") != "run_end" or records[-1].get("complete") is not False:
            fail(f"the journal does not end with run_end complete=false: {records[-1]}")
        print(f"figures: report.json incomplete ({run['incomplete_reason']}), {len(journaled)} results, "
              f"journal {os.path.getsize(path)} bytes")
    elif mode == "rerendered":
        report = load_report(args.dir)
        same_points(journaled, report["results"], f"{args.dir}/report.json")
        if report["run"].get("complete", True):
            fail("the re-rendered report of a killed run says it is complete")
        print(f"figures: re-rendered {len(journaled)} results from a journal of {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
