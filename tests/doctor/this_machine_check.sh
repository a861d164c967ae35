#!/bin/bash
# k25comm doctor on the machine the tests run on (a GPU or none, sysfs readable or not, root or not): exit 0,
# doctor.json and doctor.md written, and every section says what it could not see; never a crash. With ROOT,
# doctor reads an empty folder made there instead of /: a host whose sysfs cannot be read at all.
# Usage: this_machine_check.sh K25COMM OUT_DIR [ROOT]
set -u
bin=$1 out=$2 root=${3:-}
rm -rf "$out"
args=(doctor --out "$out" --no-plots)
if [ -n "$root" ]; then
  rm -rf "$root" && mkdir -p "$root" || exit 1
  args+=(--root "$root")
fi
output=$("$bin" "${args[@]}" 2>&1)
rc=$?
echo "$output"
[ "$rc" = 0 ] || { echo "FAIL: exit $rc, expected 0"; exit 1; }
if grep -qE "Segmentation|Aborted|terminate called|core dumped" <<<"$output"; then echo "FAIL: crashed"; exit 1; fi
[ -s "$out/doctor.json" ] && [ -s "$out/doctor.md" ] || { echo "FAIL: doctor.json or doctor.md missing"; exit 1; }
python3 - "$out/doctor.json" <<'PY' || exit 1
import json, sys
doc = json.load(open(sys.argv[1]))
node, verdicts = doc["node"], doc["verdicts"]
problems = []
if not doc["headline"]:
    problems.append("no headline")
if node["root"] == "/" and node["p2p"]["status"] != "measured" and not any(
        s.startswith("measured P2P: ") for s in node["unseen"]):
    problems.append("the P2P matrix was not measured and 'not seen' does not say so")
if not node["gpus"]:
    if not any(v["id"] == "no_gpu" for v in verdicts):
        problems.append("no GPU and no no_gpu verdict")
    if not any(s.startswith("GPUs: ") or s.startswith("PCI devices: ") for s in node["unseen"]):
        problems.append("no GPU and 'not seen' does not say why")
if node["iommu"]["mode"] == "unknown" and not any(s.startswith("IOMMU: ") for s in node["unseen"]):
    problems.append("IOMMU unknown and 'not seen' does not say so")
for v in verdicts:
    for key in ("finding", "cost", "fix", "source"):
        if not v[key]:
            problems.append(f"verdict {v['id']} has no {key}")
print("\n".join("FAIL: " + p for p in problems) or "ok: every section says what it saw or did not see")
sys.exit(1 if problems else 0)
PY
# doctor.md: every section there, none empty (an empty one says why).
python3 - "$out/doctor.md" <<'PY' || exit 1
import re, sys
text = open(sys.argv[1]).read()
sections = dict(re.findall(r"^## (.+)\n\n((?:(?!^## ).*\n?)*)", text, re.M))
problems = []
for name in ("Verdicts", "GPUs", "Paths between GPUs", "Bridges on the GPUs' paths", "IOMMU", "Versions",
             "NCCL's view", "Measured P2P", "All-reduce backends that ran"):
    if name not in sections:
        problems.append(f"doctor.md has no section '{name}'")
    elif not sections[name].strip():
        problems.append(f"doctor.md's section '{name}' is empty")
print("\n".join("FAIL: " + p for p in problems) or f"ok: doctor.md's {len(sections)} sections each say something")
sys.exit(1 if problems else 0)
PY
echo "ok: doctor on this machine"
