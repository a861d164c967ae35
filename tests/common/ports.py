#!/usr/bin/env python3
"""Ports and bounded waits for the servers the tests start (the one place that chooses a port).

A server that can take port 0 gets its port from the kernel and says which (the fake OpenAI server prints
"PORT <n>"): read that line with read_port_line(), bounded by wall time. A server that needs its number up front
(slurmctld and slurmd read theirs from slurm.conf) gets pick_ports(): ports outside the machine's ephemeral range
(/proc/sys/net/ipv4/ip_local_port_range), where the kernel never puts the local end of a connection, each one
bound once here to see that it is free. Another program can still take a port between that check and the
server's bind: the caller retries with other ports and says so in its log (tests/multihost/slurm_cluster.sh).

    python3 tests/common/ports.py pick [--count N]   first of N consecutive free ports (default 1), on stdout
    python3 tests/common/ports.py range              the ranges pick draws from, on stdout

Python tests import it (sys.path gets tests/common) for refused_port() and wait_for() as well.
"""
import argparse
import contextlib
import random
import selectors
import socket
import sys
import time

EPHEMERAL_RANGE_FILE = "/proc/sys/net/ipv4/ip_local_port_range"
LOWEST = 10000  # below: the well-known and registered services' usual ports, left alone where we can


def ephemeral_range(path=EPHEMERAL_RANGE_FILE):
    """The (low, high) ports the kernel hands out as local ends of connections and for bind to port 0."""
    try:
        with open(path) as f:
            low, high = (int(field) for field in f.read().split())
        return low, high
    except (OSError, ValueError):
        return 32768, 60999  # Linux's default


def candidate_ranges(ephemeral=None):
    """Inclusive port ranges outside the ephemeral range, the larger first: above LOWEST where that leaves
    room, else from 1024."""
    low, high = ephemeral or ephemeral_range()
    ranges = []
    floor = LOWEST if low - LOWEST >= 1000 else 1024
    if low - 1 >= floor:
        ranges.append((floor, low - 1))
    if high + 1 <= 65535:
        ranges.append((high + 1, 65535))
    ranges.sort(key=lambda r: r[1] - r[0], reverse=True)
    if not ranges:
        raise RuntimeError(f"no port lies outside the ephemeral range {low}-{high} ({EPHEMERAL_RANGE_FILE})")
    return ranges


def port_is_free(port, host="0.0.0.0"):
    """True when a TCP socket binds host:port now (no SO_REUSEADDR: a port in TIME_WAIT counts as taken)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
            return True
        except OSError:
            return False


def pick_ports(count=1, host="0.0.0.0", tries=200, rng=random.SystemRandom()):
    """The first of `count` consecutive ports outside the ephemeral range, each free on host right now."""
    ranges = candidate_ranges()
    weights = [r[1] - r[0] + 1 for r in ranges]
    for _ in range(tries):
        first, last = rng.choices(ranges, weights)[0]
        if last - first + 1 < count:
            continue
        port = rng.randint(first, last - count + 1)
        if all(port_is_free(p, host) for p in range(port, port + count)):
            return port
    raise RuntimeError(f"no {count} consecutive free port(s) found outside the ephemeral range in {tries} tries")


@contextlib.contextmanager
def refused_port(host="127.0.0.1"):
    """A port that refuses connections for as long as the block runs: a socket bound there and not listening
    (a SYN to it is answered with a reset), which also keeps any other program from listening there."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        yield s.getsockname()[1]


def wait_for(probe, seconds, what, alive=None, interval=0.1):
    """Calls probe() until it returns a true value (returned) or `seconds` of wall time have passed
    (TimeoutError naming what and the time really waited). alive(), when given, is asked each round: False ends
    the wait at once (RuntimeError). probe must not block for long (give its own calls a timeout)."""
    start = time.monotonic()
    while True:
        value = probe()
        if value:
            return value
        waited = time.monotonic() - start
        if alive is not None and not alive():
            raise RuntimeError(f"{what}: gave up after {waited:.1f} s, the process it waited for ended")
        if waited >= seconds:
            raise TimeoutError(f"{what}: not within {seconds:g} s (waited {waited:.1f} s)")
        time.sleep(min(interval, max(0.0, seconds - waited)))


def read_port_line(process, seconds, what="server"):
    """Reads the "PORT <n>" line a server started with --port 0 prints on its stdout (a text pipe), within
    `seconds` of wall time; returns n. Raises RuntimeError (the lines read so far) when the process ends or
    prints something else first, TimeoutError when the time is up."""
    start = time.monotonic()
    seen = []
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while True:
            left = seconds - (time.monotonic() - start)
            if left <= 0:
                raise TimeoutError(f"{what} printed no 'PORT <n>' line within {seconds:g} s "
                                   f"(waited {time.monotonic() - start:.1f} s): {''.join(seen)!r}")
            if not selector.select(left):
                continue
            line = process.stdout.readline()  # the server writes whole lines, flushed
            if line.startswith("PORT "):
                return int(line.split()[1])
            if not line:
                raise RuntimeError(f"{what} ended before it listened (exit code {process.wait(5)}): "
                                   f"{''.join(seen)!r}")
            seen.append(line)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    pick = sub.add_parser("pick", help="print the first of N consecutive free ports outside the ephemeral range")
    pick.add_argument("--count", type=int, default=1)
    pick.add_argument("--host", default="0.0.0.0", help="address the ports must be free on (default %(default)s)")
    sub.add_parser("range", help="print the ephemeral range and the ranges pick draws from")
    args = parser.parse_args()
    try:
        if args.command == "pick":
            print(pick_ports(args.count, args.host))
        else:
            low, high = ephemeral_range()
            ranges = ", ".join(f"{a}-{b}" for a, b in candidate_ranges((low, high)))
            print(f"ephemeral {low}-{high}; picked from {ranges}")
    except RuntimeError as error:
        print(f"ports.py: {error}", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
