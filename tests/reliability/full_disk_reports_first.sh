#!/bin/bash
# Issue 21 item 14: a disk that fills up while the optional files are written (trace.json, CSV, plots) costs
# them alone: report.json and report.md are written first, the message names the file that failed, says the
# reports were written and that journal.jsonl kept every point, and `k25comm report journal.jsonl` rebuilds the
# rest once there is room, complete (issue 31 item 5). A real full disk: a tmpfs sized for the journal and the
# reports but not trace.json.
# usage: full_disk_reports_first.sh K25COMM MPIRUN CONFIG WORK_DIR      (exit 77: cannot mount a tmpfs here)
set -uo pipefail
K25COMM=$1 MPIRUN=$2 config=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
flags=(--sizes "$config" --tokens 1,2,4,8,16 --iters 30 --time-budget 0.2)
run() { timeout --kill-after=5 120 "$MPIRUN" -np 2 --oversubscribe "$K25COMM" "${flags[@]}" --out "$1" >"$2" 2>&1; }

# 1. The sizes of this run's files on a disk with room.
run "$work/roomy" "$work/roomy.log" || { cat "$work/roomy.log"; echo "FAIL: the run on a roomy disk failed"; exit 1; }
kib() { echo $(( ($(stat -c %s "$1") + 4095) / 4096 * 4 )); }
journal=$(kib "$work/roomy/journal.jsonl") json=$(kib "$work/roomy/report.json") md=$(kib "$work/roomy/report.md")
trace=$(kib "$work/roomy/trace.json")
# Room for the journal, the reports and 16 KiB of slack (the journal's run_end, sizes that vary with the
# figures), and not for trace.json.
size=$((journal + json + md + 16))
echo "sizes (KiB, in pages): journal $journal, report.json $json, report.md $md, trace.json $trace; tmpfs ${size}k"
[ "$trace" -gt 32 ] || { echo "FAIL: trace.json ($trace KiB) too small to overflow the slack"; exit 1; }

# 2. The same run on a full disk.
disk=$work/disk
mkdir -p "$disk"
[ "$(id -u)" -eq 0 ] && mount -t tmpfs -o "size=${size}k" tmpfs "$disk" 2>/dev/null ||
  { echo "skip: cannot mount a tmpfs here"; exit 77; }
trap 'umount "$disk" 2>/dev/null' EXIT
run "$disk/out" "$work/full.log"
rc=$?
cat "$work/full.log"
ls -la "$disk/out"
[ "$rc" -eq 3 ] || { echo "FAIL: exit $rc on a full disk, expected 3"; exit 1; }
grep -qE "k25comm: error: cannot (write|create|flush) '$disk/out/trace.json[^']*': No space left on device; report.json and report.md were written; nothing measured is lost: $disk/out/journal.jsonl holds every point, and \`k25comm report $disk/out/journal.jsonl\` rebuilds" "$work/full.log" ||
  { echo "FAIL: the message does not name trace.json, the written reports, the journal and the rebuild"; exit 1; }
python3 - "$disk/out" <<'PY' || exit 1
import json, sys
out = sys.argv[1]
report = json.load(open(f"{out}/report.json"))
lines = [json.loads(line) for line in open(f"{out}/journal.jsonl")]
journaled = [l["result"] for l in lines if l["type"] == "result"]
assert len(report["results"]) == len(journaled) == 15, (len(report["results"]), len(journaled))
assert report["run"]["complete"] is True
assert "## Headline" in open(f"{out}/report.md").read()
print(f"ok: report.json and report.md hold all {len(journaled)} points")
PY

# 3. Once there is room, the journal rebuilds the rest.
"$K25COMM" report "$disk/out/journal.jsonl" --out "$work/rebuilt" >"$work/rebuilt.log" 2>&1 ||
  { cat "$work/rebuilt.log"; echo "FAIL: k25comm report journal.jsonl"; exit 1; }
for f in report.json report.md results.csv; do
  [ -s "$work/rebuilt/$f" ] || { echo "FAIL: rebuilt output lacks $f"; exit 1; }
done
# Issue 31 item 5: every point finished before the disk filled, so the rebuilt report is complete: no
# "[incomplete run]" tag on its headline, the journal ends with run_end.
python3 - "$disk/out/journal.jsonl" "$work/rebuilt/report.json" <<'PY' || exit 1
import json, sys
lines = [json.loads(line) for line in open(sys.argv[1])]
assert lines[-1]["type"] == "run_end" and lines[-1]["complete"] is True, lines[-1]
report = json.load(open(sys.argv[2]))
assert report["run"]["complete"] is True, report["run"].get("incomplete_reason")
assert report["headline"] and not any("incomplete run" in h for h in report["headline"]), report["headline"]
print(f"ok: rebuilt from the journal: complete, {len(report['headline'])} headline sentences without [incomplete run]")
PY
grep -q "incomplete run" "$work/rebuilt.log" && { echo "FAIL: the rebuild says incomplete run"; exit 1; }
echo "ok: full disk at trace.json: reports first, the journal named, rebuilt from it"
