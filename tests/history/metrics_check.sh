#!/bin/bash
# `k25comm history metrics` of the fixture nights' store and of one report: `promtool check metrics` (Debian's
# prometheus package) passes on both, the families and labels are named as the issue's example, the text ends with
# "# EOF", --out writes the same text; each node's latest night only. A text promtool refuses makes it fail (the check
# sees a bad text). Exit 77 (skipped) where promtool is not installed.
# usage: metrics_check.sh K25COMM NIGHTS_DIR WORK_DIR
set -uo pipefail
k25comm=$1 nights=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
command -v promtool >/dev/null || { echo "SKIP: no promtool installed (Debian's prometheus; tools/setup --tests installs it)"; exit 77; }
rm -rf "$work" && mkdir -p "$work"
"$k25comm" history add "$nights"/*/*/report.json --db "$work/history.sqlite" >"$work/add.log" || fail "history add"

"$k25comm" history metrics "$work/history.sqlite" >"$work/store.prom" || fail "history metrics of the store"
promtool check metrics <"$work/store.prom" || fail "promtool check metrics refused the store's metrics"
report=$(ls "$nights"/pcie-node/*/report.json | head -1)
"$k25comm" history metrics "$report" >"$work/report.prom" || fail "history metrics of a report"
promtool check metrics <"$work/report.prom" || fail "promtool check metrics refused a report's metrics"

for file in store report; do
  [ "$(tail -1 "$work/$file.prom")" = "# EOF" ] || fail "$file.prom does not end with # EOF"
done
grep -qx '# TYPE k25comm_allreduce_burst_seconds summary' "$work/store.prom" || fail "no summary family"
grep -qx '# UNIT k25comm_allreduce_burst_seconds seconds' "$work/store.prom" || fail "no UNIT seconds"
grep -q '^k25comm_allreduce_burst_seconds{node="pcie-node",tokens="1",mode="eager",backend="mpi",quantile="0.5"} ' \
  "$work/store.prom" || fail "no burst of pcie-node at 1 token, labelled as the naming conventions say"
grep -q '^k25comm_dispatch_bus_bandwidth_bytes_per_second{node="nvlink-node",tokens="16",mode="eager",backend="mpi"} ' \
  "$work/store.prom" || fail "no bus bandwidth gauge in bytes per second"
grep -q '^k25comm_run_info{node="pcie-node",topology="pcie",.*nccl="2.29.7"' "$work/store.prom" ||
  fail "pcie-node's run_info is not its latest night's (NCCL 2.29.7)"
[ "$(grep -c '^k25comm_run_start_timestamp_seconds{' "$work/store.prom")" -eq 2 ] || fail "not one latest night per node"
# 2025-06-12T02:00:00Z, the latest night.
grep -qx 'k25comm_run_start_timestamp_seconds{node="pcie-node"} 1749693600' "$work/store.prom" || fail "latest night"

"$k25comm" history metrics "$work/history.sqlite" --out "$work/out.prom" >/dev/null || fail "--out"
cmp -s "$work/out.prom" "$work/store.prom" || fail "--out wrote another text than standard output"

# The check itself: promtool refuses a family whose samples are split.
sed '0,/^k25comm_allreduce_burst_seconds_count/{/^k25comm_allreduce_burst_seconds_count/d}' "$work/store.prom" >"$work/bad.prom"
printf 'k25comm_allreduce_burst_seconds{node="x",quantile="0.5"} oops\n' >>"$work/bad.prom"
! promtool check metrics <"$work/bad.prom" >/dev/null 2>&1 || fail "promtool accepted a malformed text"
echo "PASS"
