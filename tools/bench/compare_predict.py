#!/usr/bin/env python3
"""The table and band of tools/bench-predict: k25comm predict's decode step against the one measured.

Each round gives predict.json (the base: the decode mode on one link; the alternative: the eager replay on another)
and the report of the decode mode measured on the alternative's link in the same round. Per round and token count
it prints, for the join-aware and the back-to-back prediction, predicted / measured of
  comm:    the step's communication (predict's exposed_us) against the measured decode comm_us p50: the part of
           the step the link changes (the compute gaps are the same configured ones on both links): banded;
  step:    the whole step (step_us) against the measured step_us p50;
  per op:  new_comm_us / ops_per_step against the measured decode op_us p50 (a p50 of ops, not of steps: printed).
The verdict takes the median over the rounds per token count: the join-aware communication ratio must lie in BAND
and, where the base's skew is large (the bench's setting), the join-aware prediction must be the closer of the two.
On the loaded 2-core work machine two ranks spinning on two cores leave the loopback TCP stack so little CPU that
now and then an op takes milliseconds; a round whose step p50 caught such ops stands out (ratio near 0.15), and
the median over the rounds is what the band judges.
--judge JOIN B2B applies the same verdict to ratios given on the command line (the bench's own test).
Exits 1 outside the band (or when back-to-back is the closer), 2 on bad use or a missing point.
"""
import argparse
import json
import statistics
import sys

from band import parse_band


def verdict(join_ratio, b2b_ratio, band):
    """The reasons a point fails: outside the band, or back-to-back the closer of the two."""
    reasons = []
    if not band[0] <= join_ratio <= band[1]:
        reasons.append(f"join-aware {join_ratio:.3f} outside {band[0]:g}..{band[1]:g}")
    if abs(b2b_ratio - 1) < abs(join_ratio - 1):
        reasons.append("back-to-back is the closer")
    return reasons


def measured_points(report_path):
    """{tokens: (op_us p50, decode comm_us p50, step_us p50)} of the measured decode mode's AllReduce."""
    results = json.load(open(report_path))["results"]
    return {r["requested_tokens"]: (r["op_us"]["p50"], r["decode"]["comm_us"]["p50"], r["step_us"]["p50"])
            for r in results if r["mode"] == "decode" and r["phase"] == "allreduce"}


def per_op(estimate):
    """The predicted communication per op of a step estimate's (one) kind."""
    kind = estimate["kinds"][0]
    return kind["new_comm_us"] / kind["ops_per_step"]


def round_ratios(predict_path, measured_path, number):
    """{tokens: (join comm ratio, b2b comm ratio)} of one round, its table rows printed."""
    alternative = json.load(open(predict_path))["alternatives"][0]
    measured = measured_points(measured_path)
    ratios = {}
    for level in alternative["levels"]:
        tokens = level["batch"]
        if level["refused"] or tokens not in measured or level["join_aware"] is None:
            raise LookupError(f"round {number}: no join-aware prediction or no measurement at T={tokens}")
        op, comm, step = measured[tokens]
        join, b2b = level["join_aware"], level["back_to_back"]
        ratios[tokens] = (join["exposed_us"] / comm, b2b["exposed_us"] / comm)
        print(f"{number:>5} {tokens:>6} {comm:>9.1f} {join['exposed_us']:>9.1f} {ratios[tokens][0]:>6.3f} "
              f"{b2b['exposed_us']:>9.1f} {ratios[tokens][1]:>6.3f}   {step:>9.1f} {join['step_us'] / step:>6.3f} "
              f"{b2b['step_us'] / step:>6.3f}   {op:>7.1f} {per_op(join) / op:>6.3f} {per_op(b2b) / op:>6.3f}")
    return ratios


def compare(pairs, band):
    print(f"{'round':>5} {'tokens':>6} {'comm meas':>9} {'join-aw.':>9} {'ratio':>6} {'back-to-b':>9} {'ratio':>6}   "
          f"{'step meas':>9} {'join':>6} {'b2b':>6}   {'op meas':>7} {'join':>6} {'b2b':>6}   "
          "(us, p50; ratios predicted / measured; comm banded)")
    rounds = [round_ratios(p, m, i + 1) for i, (p, m) in enumerate(pairs)]
    failures = 0
    for tokens in sorted(rounds[0]):
        join = statistics.median(r[tokens][0] for r in rounds)
        b2b = statistics.median(r[tokens][1] for r in rounds)
        reasons = verdict(join, b2b, band)
        failures += bool(reasons)
        print(f"median over {len(rounds)} round(s), T={tokens}: join-aware {join:.3f}, back-to-back {b2b:.3f}: "
              f"{'; '.join(reasons) or 'ok'}")
    return failures


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--band", type=parse_band, default=(0.85, 1.15), help='"LOW,HIGH" of the join-aware ratio')
    parser.add_argument("--judge", nargs=2, type=float, metavar=("JOIN", "B2B"), help="ratios to judge")
    parser.add_argument("files", nargs="*", metavar="PREDICT_JSON MEASURED_REPORT", help="one pair per round")
    args = parser.parse_args(argv)
    if args.judge:
        reasons = verdict(args.judge[0], args.judge[1], args.band)
        print("bench-predict: " + ("OUTSIDE the band: " + "; ".join(reasons) if reasons else "within the band"))
        return 1 if reasons else 0
    if not args.files or len(args.files) % 2:
        parser.error("give PREDICT_JSON MEASURED_REPORT pairs, or --judge JOIN B2B")
    try:
        failures = compare(list(zip(args.files[::2], args.files[1::2])), args.band)
    except KeyError as e:
        print(f"bench-predict: a file without the field {e} (predict.json and report.json pairs, in that order)")
        return 2
    except (LookupError, OSError, ValueError, TypeError) as e:
        print(f"bench-predict: {e}")
        return 2
    print("bench-predict: " + ("OUTSIDE the band" if failures else "within the band") +
          f" (join-aware predicted / measured communication, median over rounds, in {args.band[0]:g}..{args.band[1]:g})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
