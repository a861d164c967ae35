#!/bin/bash
# tools/bench-history-page's verdict on given ratios (--judge): inside both bands exit 0, a page that opened in more
# than a second or drew its charts at more than 2.5 times the reference's time exit 1. The bench itself loads a year of
# nights in Chromium and times it: a benchmark, never a test.
# usage: bench_verdict_check.sh BENCH
set -uo pipefail
bench=$1
fail() { echo "FAIL: $*"; exit 1; }
"$bench" --judge 0.4 1.3 >/dev/null || fail "ratios inside the bands were judged outside"
out=$("$bench" --judge 1.2 1.3) && fail "a page that opened in 1.2 s passed"
grep -q "opened / 1000 ms = 1.200 (OUTSIDE" <<<"$out" || fail "the verdict does not name the opened ratio: $out"
"$bench" --judge 0.4 2.7 >/dev/null && fail "charts at 2.7x the reference's time passed"
"$bench" --judge 0.4 2.7 --band 1.0,3.0 >/dev/null || fail "--band did not widen the reference's band"
echo "PASS"
