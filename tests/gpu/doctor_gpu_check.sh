#!/bin/bash
# k25comm doctor on a GPU machine (tools/gpu-checks' doctor group): exit 0, the node's GPUs found in sysfs and by
# NVML, and the measured P2P matrix complete: every ordered pair (or, with one GPU, its own copy said as a bound)
# with push, pull and memcpy bandwidth above zero and a latency. Prints the matrices; the doctor output stays in
# OUT_DIR (doctor.json, doctor.md, p2p.png where matplotlib is installed).
# Usage: doctor_gpu_check.sh K25COMM OUT_DIR
set -u
bin=$1 out=$2
rm -rf "$out"
mkdir -p "$out"
timeout 100 "$bin" doctor --out "$out" 2>&1 | tee "$out/doctor.txt"
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || { echo "FAIL: doctor exited $rc"; exit 1; }
python3 - "$out/doctor.json" <<'PY'
import json, sys
node = json.load(open(sys.argv[1]))["node"]
p2p = node["p2p"]
problems = []
if not node["gpus"]:
    problems.append("sysfs showed no GPU")
if node["nvml"] != "read":
    problems.append(f"NVML: {node['nvml']}")
if p2p["status"] != "measured":
    problems.append(f"P2P not measured: {p2p['status']}")
n = len(p2p["bus_ids"])
want = n * (n - 1) if n > 1 else 1
if len(p2p["directions"]) != want:
    problems.append(f"{len(p2p['directions'])} directions measured, {want} expected for {n} GPUs")
for d in p2p["directions"]:
    name = f"{d['src']}->{d['dst']}"
    if not d["memcpy_gbps"] > 0 or not d["latency_us"] > 0:
        problems.append(f"{name}: memcpy {d['memcpy_gbps']} GB/s, latency {d['latency_us']} us")
    if d["peer_access"] and not (d["push_gbps"] > 0 and d["pull_gbps"] > 0):
        problems.append(f"{name}: peer access but push {d['push_gbps']}, pull {d['pull_gbps']}")
if n == 1 and "bound" not in p2p["note"]:
    problems.append("one GPU, and the note does not say its copy is a bound")
sysfs = sorted(g["bus_id"] for g in node["gpus"])
if sorted(p2p["bus_ids"]) != sysfs:
    problems.append(f"CUDA's GPUs {p2p['bus_ids']} are not sysfs's {sysfs}")
for d in p2p["directions"]:
    print(f"{d['src']}->{d['dst']}: push {d['push_gbps']:.1f} pull {d['pull_gbps']:.1f} "
          f"memcpy {d['memcpy_gbps']:.1f} GB/s, latency {d['latency_us']:.1f} us, peer {d['peer_access']}")
print("\n".join("FAIL: " + p for p in problems) or f"ok: doctor measured {len(p2p['directions'])} directions on {n} GPUs")
sys.exit(1 if problems else 0)
PY
