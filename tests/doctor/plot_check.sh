#!/bin/bash
# tools/plot-doctor on a doctor.json with a measured matrix (two GPUs, one direction without peer access) draws
# p2p.png; on one without a measurement it exits 2 saying why.
# Usage: plot_check.sh PLOT_DOCTOR OUT_DIR
set -u
plot=$1 out=$2
# The interpreter k25comm runs the plot scripts with (report/plot_script.hpp's plot_python): $K25_PYTHON, else
# Debian's /usr/bin/python3 (python3-matplotlib), else python3 on PATH.
py=${K25_PYTHON:-}
[ -z "$py" ] && [ -x /usr/bin/python3 ] && py=/usr/bin/python3
py=${py:-python3}
rm -rf "$out"
mkdir -p "$out/measured" "$out/none"
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
direction = lambda s, d, peer, push, pull, memcpy, lat: {"src": s, "dst": d, "peer_access": peer, "push_gbps": push,
                                                         "pull_gbps": pull, "memcpy_gbps": memcpy, "latency_us": lat}
measured = {"status": "measured", "bus_ids": ["0000:4e:00.0", "0000:4f:00.0"], "bytes": 67108864, "small_bytes": 8,
            "repeats": 10, "note": "",
            "directions": [direction(0, 1, True, 24.1, 23.8, 25.2, 9.5), direction(1, 0, False, -1, -1, 11.9, 14.2)]}
json.dump({"node": {"p2p": measured}}, open(f"{out}/measured/doctor.json", "w"))
json.dump({"node": {"p2p": {"status": "no GPU visible", "bus_ids": [], "directions": []}}},
          open(f"{out}/none/doctor.json", "w"))
PY
"$py" "$plot" "$out/measured/doctor.json" || { echo "FAIL: plot-doctor exited $?"; exit 1; }
[ -s "$out/measured/p2p.png" ] || { echo "FAIL: no p2p.png"; exit 1; }
message=$("$py" "$plot" "$out/none/doctor.json" 2>&1)
rc=$?
echo "$message"
[ "$rc" = 2 ] || { echo "FAIL: exit $rc for a doctor.json without a measurement, expected 2"; exit 1; }
grep -qF "nothing measured (no GPU visible)" <<<"$message" || { echo "FAIL: the message does not say why"; exit 1; }
echo "ok: plot-doctor draws a measured matrix and refuses an unmeasured one"
