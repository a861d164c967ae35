#!/usr/bin/env python3
"""The table and band of tools/bench-predict: k25comm predict's decode step against the one measured.

Each round gives, per kind of round, predict.json and the report of the decode mode measured on the alternative's
link in a run of its own:
  identity:        base and alternative on the same link (the base's own link predicts the base);
  cross-link:      the alternative's eager replay on another link;
  measured-shape:  the alternative's decode mode with the base's gaps and skew (predict takes it as measured).
Per round, kind and token count it prints predicted / measured of
  comm:    the step's communication (predict's exposed_us) against the measured decode comm_us p50: the part of
           the step the link changes (the compute gaps are the same configured ones on both links): banded;
  step:    the whole step (step_us) against the measured step_us p50;
  per op:  new_comm_us / ops_per_step against the measured decode op_us p50 (a p50 of ops, not of steps: printed).
for the predicted figure (identity and cross-link: the additive end of the range, and the overlapping end and
back-to-back beside it; measured-shape: the one figure). The verdict takes the median over the rounds per kind and
token count: the predicted communication ratio must lie in BAND, and in the cross-link round (the base's skew is
large) back-to-back must not be the closer. On the loaded 2-core work machine two ranks spinning on two cores leave
the loopback TCP stack so little CPU that now and then an op takes milliseconds; a round whose step p50 caught such
ops stands out (ratio near 0.15), and the median over the rounds is what the band judges.
--judge ADDITIVE B2B applies the cross-link verdict to ratios given on the command line (the bench's own test).
Exits 1 outside the band (or when back-to-back is the closer), 2 on bad use or a missing point.
"""
import argparse
import json
import statistics
import sys

from band import parse_band

KINDS = ("identity", "cross-link", "measured-shape")
# The predict.json versions read here; the members named in per_op and round_ratios are ones the writer writes
# (ctest predict_python_readers_fields).
PREDICT_SCHEMA_VERSIONS = (2, 3)


def verdict(predicted_ratio, b2b_ratio, band, check_b2b=True):
    """The reasons a point fails: outside the band, or back-to-back the closer of the two."""
    reasons = []
    if not band[0] <= predicted_ratio <= band[1]:
        reasons.append(f"predicted {predicted_ratio:.3f} outside {band[0]:g}..{band[1]:g}")
    if check_b2b and b2b_ratio is not None and abs(b2b_ratio - 1) < abs(predicted_ratio - 1):
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


def round_ratios(kind, predict_path, measured_path, number):
    """{tokens: (predicted comm ratio, back-to-back comm ratio or None)} of one round, its table rows printed."""
    predict = json.load(open(predict_path))
    if predict.get("schema_version") not in PREDICT_SCHEMA_VERSIONS:
        raise ValueError(f"{predict_path}: predict.json schema_version {predict.get('schema_version')}, "
                         f"this script reads {PREDICT_SCHEMA_VERSIONS}")
    alternative = predict["alternatives"][0]
    measured = measured_points(measured_path)
    ratios = {}
    for level in alternative["levels"]:
        tokens = level["batch"]
        predicted = level["predicted"]
        if predicted is None or tokens not in measured:
            raise LookupError(f"{kind} round {number}: no prediction or no measurement at T={tokens}")
        if kind == "measured-shape" and predicted["method"] != "measured-shape":
            raise LookupError(f"{kind} round {number}: predicted {predicted['method']}, not measured-shape")
        op, comm, step = measured[tokens]
        main = level["estimates"][predicted["high"]]
        b2b = level["estimates"]["back-to-back"] if kind != "measured-shape" else None
        ratios[tokens] = (main["exposed_us"] / comm, b2b["exposed_us"] / comm if b2b else None)
        low = level["estimates"][predicted["low"]]
        beside = (f"{low['exposed_us'] / comm:>6.3f} {b2b['exposed_us'] / comm:>6.3f}" if b2b
                  else f"{'-':>6} {'-':>6}")
        print(f"{kind:>14} {number:>5} {tokens:>6} {comm:>9.1f} {main['exposed_us']:>9.1f} {ratios[tokens][0]:>6.3f} "
              f"{beside}   {step:>9.1f} {main['step_us'] / step:>6.3f}   {op:>7.1f} {per_op(main) / op:>6.3f}")
    return ratios


def compare(triples, band):
    print(f"{'round':>14} {'no.':>5} {'tokens':>6} {'comm meas':>9} {'predicted':>9} {'ratio':>6} {'overl.':>6} "
          f"{'b2b':>6}   {'step meas':>9} {'ratio':>6}   {'op meas':>7} {'ratio':>6}   "
          "(us, p50; ratios predicted / measured; predicted = the additive end or the one figure; comm banded)")
    rounds = {kind: [] for kind in KINDS}
    numbers = {kind: 0 for kind in KINDS}
    for kind, predict_path, measured_path in triples:
        numbers[kind] += 1
        rounds[kind].append(round_ratios(kind, predict_path, measured_path, numbers[kind]))
    failures = 0
    for kind in KINDS:
        if not rounds[kind]:
            continue
        for tokens in sorted(rounds[kind][0]):
            predicted = statistics.median(r[tokens][0] for r in rounds[kind])
            b2b_values = [r[tokens][1] for r in rounds[kind] if r[tokens][1] is not None]
            b2b = statistics.median(b2b_values) if b2b_values else None
            reasons = verdict(predicted, b2b, band, check_b2b=kind == "cross-link")
            failures += bool(reasons)
            b2b_text = f", back-to-back {b2b:.3f}" if b2b is not None else ""
            print(f"median over {len(rounds[kind])} {kind} round(s), T={tokens}: predicted {predicted:.3f}{b2b_text}: "
                  f"{'; '.join(reasons) or 'ok'}")
    return failures


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--band", type=parse_band, default=(0.85, 1.15), help='"LOW,HIGH" of the predicted ratio')
    parser.add_argument("--judge", nargs=2, type=float, metavar=("ADDITIVE", "B2B"), help="ratios to judge")
    parser.add_argument("files", nargs="*", metavar="KIND PREDICT_JSON MEASURED_REPORT",
                        help=f"one triple per round, KIND one of {', '.join(KINDS)}")
    args = parser.parse_args(argv)
    if args.judge:
        reasons = verdict(args.judge[0], args.judge[1], args.band)
        print("bench-predict: " + ("OUTSIDE the band: " + "; ".join(reasons) if reasons else "within the band"))
        return 1 if reasons else 0
    triples = list(zip(args.files[::3], args.files[1::3], args.files[2::3]))
    if not args.files or len(args.files) % 3 or any(kind not in KINDS for kind, _, _ in triples):
        parser.error("give KIND PREDICT_JSON MEASURED_REPORT triples, or --judge ADDITIVE B2B")
    try:
        failures = compare(triples, args.band)
    except KeyError as e:
        print(f"bench-predict: a file without the field {e} (predict.json and report.json, in that order)")
        return 2
    except (LookupError, OSError, ValueError, TypeError) as e:
        print(f"bench-predict: {e}")
        return 2
    print("bench-predict: " + ("OUTSIDE the band" if failures else "within the band") +
          f" (predicted / measured communication, median over rounds, in {args.band[0]:g}..{args.band[1]:g})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
