"""A benchmark's band on the command line: "LOW,HIGH" (argparse type of tools/bench/compare_*.py)."""
import argparse


def parse_band(text):
    """(low, high) from "LOW,HIGH"; argparse reports anything else as a usage error (exit 2)."""
    try:
        low, high = (float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not LOW,HIGH (two numbers)") from None
    if low > high:
        raise argparse.ArgumentTypeError(f"{text!r}: LOW is above HIGH")
    return low, high
