#!/usr/bin/env python3
"""The table and band of tools/bench-predict: k25comm predict's decode step against the one measured.

From predict.json (the base: decode mode on one link; the alternative: eager replay on another) and the report of
the decode mode measured on the alternative's link in the same run: per token count, the predicted step (step_us,
join-aware and back-to-back) over the measured decode step_us p50. The join-aware ratio must lie in BAND, and,
where the base's skew is large (the bench's setting), the join-aware prediction must be the closer of the two.
--judge JOIN B2B applies the same verdict to ratios given on the command line (the bench's own test).
Exits 1 outside the band (or when back-to-back is the closer), 2 on bad use or a missing point.
"""
import argparse
import json
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


def measured_steps(report_path):
    results = json.load(open(report_path))["results"]
    return {r["requested_tokens"]: r["step_us"]["p50"] for r in results
            if r["mode"] == "decode" and r["phase"] == "allreduce"}


def compare(predict_path, measured_path, band):
    predict = json.load(open(predict_path))
    measured = measured_steps(measured_path)
    alternative = predict["alternatives"][0]
    print(f"bench-predict: {alternative['headline']}")
    print(f"{'tokens':>6} {'base us':>9} {'measured us':>11} {'join-aware us':>13} {'ratio':>6} "
          f"{'back-to-back us':>15} {'ratio':>6}  verdict")
    failures = 0
    for level in alternative["levels"]:
        tokens = level["batch"]
        if level["refused"] or tokens not in measured or level["join_aware"] is None:
            raise LookupError(f"no join-aware prediction or no measurement at T={tokens}")
        join, b2b = level["join_aware"]["step_us"], level["back_to_back"]["step_us"]
        join_ratio, b2b_ratio = join / measured[tokens], b2b / measured[tokens]
        reasons = verdict(join_ratio, b2b_ratio, band)
        failures += bool(reasons)
        print(f"{tokens:>6} {level['base_step_us']:>9.1f} {measured[tokens]:>11.1f} {join:>13.1f} {join_ratio:>6.3f} "
              f"{b2b:>15.1f} {b2b_ratio:>6.3f}  {'; '.join(reasons) or 'ok'}")
    return failures


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--band", type=parse_band, default=(0.85, 1.15), help='"LOW,HIGH" of the join-aware ratio')
    parser.add_argument("--judge", nargs=2, type=float, metavar=("JOIN", "B2B"), help="ratios to judge")
    parser.add_argument("files", nargs="*", metavar="PREDICT_JSON MEASURED_REPORT")
    args = parser.parse_args(argv)
    if args.judge:
        reasons = verdict(args.judge[0], args.judge[1], args.band)
        print("bench-predict: " + ("OUTSIDE the band: " + "; ".join(reasons) if reasons else "within the band"))
        return 1 if reasons else 0
    if len(args.files) != 2:
        parser.error("give PREDICT_JSON MEASURED_REPORT, or --judge JOIN B2B")
    try:
        failures = compare(args.files[0], args.files[1], args.band)
    except (LookupError, OSError, ValueError) as e:
        print(f"bench-predict: {e}")
        return 2
    print("bench-predict: " + ("OUTSIDE the band" if failures else "within the band") +
          f" (join-aware predicted / measured in {args.band[0]:g}..{args.band[1]:g})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
