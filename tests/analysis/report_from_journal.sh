#!/bin/bash
# `k25comm report` on a crashed run's journal (truncated last line, no run_end): exit 0, report.json and report.md
# written next to it, the report marked incomplete, the plots made and linked; with --no-plots into another folder,
# the same report.json and no plot made or linked.
# usage: report_from_journal.sh K25COMM JOURNAL OUT_DIR
set -euo pipefail
k25comm=$1 journal=$2 out=$3
rm -rf "$out" && mkdir -p "$out"
cp "$journal" "$out/journal.jsonl"
"$k25comm" report "$out/journal.jsonl"
fail() { echo "FAIL: $*"; exit 1; }
[ -s "$out/report.json" ] || fail "no report.json"
[ -s "$out/report.md" ] || fail "no report.md"
grep -q '"complete": false' "$out/report.json" || fail "report.json not marked incomplete"
grep -q "journal ends without run_end" "$out/report.md" || fail "report.md does not say the run did not finish"
grep -q "truncated" "$out/report.md" || fail "report.md does not note the truncated line"
grep -q "## Decode-time attribution" "$out/report.md" || fail "no attribution section"
grep -q "](burst_vs_tokens.png)" "$out/report.md" || fail "plots not linked"
[ -s "$out/burst_vs_tokens.png" ] || fail "no plot"
"$k25comm" report "$out/journal.jsonl" --no-plots --out "$out/no-plots" >"$out/no-plots.log" ||
  { cat "$out/no-plots.log"; fail "report --no-plots failed"; }
cmp -s "$out/report.json" "$out/no-plots/report.json" || fail "--no-plots: another report.json"
[ -z "$(find "$out/no-plots" -name '*.png')" ] || fail "--no-plots: plots made"
! grep -q "\.png)" "$out/no-plots/report.md" || fail "--no-plots: report.md links a plot"
echo "ok: re-rendered from the journal"
