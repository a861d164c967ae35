#!/bin/bash
# Stand-in for mpirun in the tools/nightly test: instead of running k25comm, puts $K25_FAKE_REPORT into the --out
# directory as report.json and exits with $K25_FAKE_RC (default 0). With $K25_FAKE_ARGS set, writes its arguments
# there, one per line.
set -euo pipefail
[ -n "${K25_FAKE_ARGS:-}" ] && printf '%s\n' "$@" >"$K25_FAKE_ARGS"
out=""
while [ $# -gt 0 ]; do
  if [ "$1" = "--out" ]; then out=$2; shift 2; else shift; fi
done
[ -n "$out" ] || { echo "fake_mpirun: no --out" >&2; exit 2; }
mkdir -p "$out"
cp "$K25_FAKE_REPORT" "$out/report.json"
echo "fake_mpirun: wrote $out/report.json"
exit "${K25_FAKE_RC:-0}"
