#!/bin/bash
# tools/plot-doctor on doctor.json files the current writer wrote (the doctor tests' case "doctor.json as the writer
# writes it, for tools/plot-doctor"): one with a measured matrix (two GPUs, one direction without peer access) draws
# p2p.png; one without a measurement exits 2 saying why. A field plot-doctor reads that the writer does not write
# fails it here.
# Usage: plot_check.sh PLOT_DOCTOR DOCTOR_TESTS OUT_DIR
set -u
plot=$1 tests=$2 out=$3
# The interpreter k25comm runs the plot scripts with (report/plot_script.hpp's plot_python): $K25_PYTHON, else
# Debian's /usr/bin/python3 (python3-matplotlib), else python3 on PATH.
py=${K25_PYTHON:-}
[ -z "$py" ] && [ -x /usr/bin/python3 ] && py=/usr/bin/python3
py=${py:-python3}
rm -rf "$out"
K25_DOCTOR_WRITTEN_DIR="$out" "$tests" "doctor.json as the writer writes it for tools/plot-doctor" >/dev/null ||
  { echo "FAIL: the doctor tests did not write the doctor.json files"; exit 1; }
"$py" "$plot" "$out/measured/doctor.json" || { echo "FAIL: plot-doctor exited $?"; exit 1; }
[ -s "$out/measured/p2p.png" ] || { echo "FAIL: no p2p.png"; exit 1; }
message=$("$py" "$plot" "$out/none/doctor.json" 2>&1)
rc=$?
echo "$message"
[ "$rc" = 2 ] || { echo "FAIL: exit $rc for a doctor.json without a measurement, expected 2"; exit 1; }
grep -qF "nothing measured (no GPU visible)" <<<"$message" || { echo "FAIL: the message does not say why"; exit 1; }
echo "ok: plot-doctor draws a measured matrix the writer wrote and refuses an unmeasured one"
