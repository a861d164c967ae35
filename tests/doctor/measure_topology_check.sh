#!/bin/bash
# A measuring run where no GPU is visible (the host transport): report.json's topology keeps its fields and gains
# no node facts (doctor's facts are gathered only where ranks drive GPUs).
# Usage: measure_topology_check.sh K25COMM CONFIG OUT_DIR
set -u
bin=$1 config=$2 out=$3
rm -rf "$out"
"$bin" --sizes "$config" --backend mpi --phases allreduce --tokens 1 --out "$out" >"$out.log" 2>&1 ||
  { cat "$out.log"; echo "FAIL: the measuring run failed"; exit 1; }
python3 - "$out/report.json" <<'PY'
import json, sys
topology = json.load(open(sys.argv[1]))["topology"]
expected = {"kind", "hosts", "gpus", "peer_access", "link_description", "link_limit_gbps"}
if set(topology) != expected:
    sys.exit(f"FAIL: topology fields {sorted(topology)}, expected {sorted(expected)}")
if topology["kind"] != "host" or topology["gpus"]:
    sys.exit(f"FAIL: kind {topology['kind']} with {len(topology['gpus'])} GPUs on the host transport")
print("ok: the host transport's topology is unchanged, no node facts")
PY
