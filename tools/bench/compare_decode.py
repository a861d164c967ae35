#!/usr/bin/env python3
"""The table and bands of tools/bench-decode, read from two k25comm reports (eager + decode modes).

zero gaps: each decode point's per-op p50 over the eager per-op pass's p50 at the same point. Both are CUDA events
  recorded just before and just after each op on the op stream, the same clock and the same bracketing (decode
  mode's op_us: from the mark after the gap to the mark after the op; eager's: between back-to-back ops), so the
  ratio shows what the decode replay adds to the collectives themselves: nothing (ZERO_BAND). The decode step's
  communication over the eager step (comm_over_back_to_back) is printed, not banded: the decode step records two
  events per op and the eager step two per burst, which a launch-bound op (one rank, ~5 us) feels.
busy gaps: each point's measured gaps (the busy kernels, CUDA events) over the configured ones (GAP_BAND), and
  the join cost.
Exits 1 when a ratio is outside its band, a point is missing, or a result is wrong.
"""
import argparse
import json
import sys

from band import parse_band


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("zero", metavar="ZERO_REPORT", help="report.json of eager and decode modes without gaps")
    parser.add_argument("gap", metavar="GAP_REPORT", help="report.json of the decode mode with busy gaps")
    parser.add_argument("zero_band", metavar="ZERO_BAND", type=parse_band, help='"LOW,HIGH" of the zero-gap ratio')
    parser.add_argument("gap_band", metavar="GAP_BAND", type=parse_band,
                        help='"LOW,HIGH" of measured / configured gaps')
    args = parser.parse_args(argv)
    zero, gap50 = (json.load(open(path))["results"] for path in (args.zero, args.gap))
    zero_band, gap_band = args.zero_band, args.gap_band
    eager = {(r["phase"], r["tokens"]): r for r in zero if r["mode"] == "eager"}
    gapped = {(r["phase"], r["tokens"]): r for r in gap50 if r["mode"] == "decode"}
    bad = 0
    print(f"{'phase':<10} {'tokens':>6}  {'eager op':>9} {'decode op':>9} {'ratio':>6}  {'comm/b2b':>8}   "
          f"{'gap conf':>9} {'gap meas':>9} {'ratio':>6} {'join cost':>9}")
    decode_points = [r for r in zero if r["mode"] == "decode"]
    if not decode_points:
        print("no decode result in the zero-gap report")
        return 1
    for r in decode_points:
        key = (r["phase"], r["tokens"])
        e, g = eager.get(key), gapped.get(key)
        flags = ""
        ratio = float("nan")
        if e is None or e.get("op_us_source") != "per_op_pass" or r.get("op_us_source") != "decode_trials":
            flags += " NO LIKE-FOR-LIKE EAGER PER-OP FIGURE"
            bad += 1
        else:
            ratio = r["op_us"]["p50"] / e["op_us"]["p50"]
            if not zero_band[0] <= ratio <= zero_band[1]:
                flags += " ZERO-GAP RATIO OUT OF BAND"
                bad += 1
        gap_ratio = float("nan")
        if g is None:
            flags += " NO GAPPED POINT"
            bad += 1
        else:
            d = g["decode"]
            gap_ratio = d["gap_measured_us"]["p50"] / d["gap_expected_us"]
            if not gap_band[0] <= gap_ratio <= gap_band[1]:
                flags += " GAP RATIO OUT OF BAND"
                bad += 1
        wrong = sum(x["wrong"] for x in (r, e, g) if x)
        if wrong:
            flags += f" WRONG {wrong}"
            bad += 1
        gd = g["decode"] if g else {}
        print(f"{r['phase']:<10} {r['tokens']:>6}  {e['op_us']['p50'] if e else 0:>7.2f}us {r['op_us']['p50']:>7.2f}us "
              f"{ratio:>6.3f}  {r['decode']['comm_over_back_to_back'] or 0:>8.3f}   "
              f"{gd.get('gap_expected_us', 0):>7.1f}us {gd.get('gap_measured_us', {}).get('p50', 0):>7.1f}us "
              f"{gap_ratio:>6.3f} {gd.get('join_cost') or 0:>8.2f}x{flags}")
    print(f"clock: CUDA events on the op stream, both sides. bands: zero gaps decode op / eager op {zero_band}, "
          f"measured / configured gaps {gap_band}; comm/b2b printed, not banded; {bad} outside")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
