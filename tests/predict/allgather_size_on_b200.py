#!/usr/bin/env python3
"""The size rule on a real capture: the vLLM B200 trace's one AllGather (c10d In msg nelems 25,136 bf16 per rank,
group size 8) is predicted at nccl-tests' size, 8 x 50,272 = 402,176 B, on a curve measured at that size.

Runs `k25comm capture` of TRACES_DIR/vllm-b200-tp8-rank0-eager.json.gz, then `k25comm predict` of its capture.json
with a CSV holding an AllGather at 402,176 B only and an AllReduce curve; checks the base's group size (8, from
distributedInfo, not the one file read), the AllGather's bytes and that its op was read at a measured size.
Exits 0 when it holds, 1 naming what does not, 77 (skipped) where the trace is absent.
Usage: allgather_size_on_b200.py K25COMM TRACES_DIR WORK_DIR
"""
import json
import os
import subprocess
import sys

TRACE = "vllm-b200-tp8-rank0-eager.json.gz"
EXPECTED_BYTES = 8 * 25136 * 2


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    k25comm, traces, work = argv
    trace = os.path.join(traces, TRACE)
    if not os.path.exists(trace):
        print(f"skipped: no {trace}")
        return 77
    os.makedirs(work, exist_ok=True)
    capture = os.path.join(work, "capture")
    subprocess.run([k25comm, "capture", trace, "--out", capture, "--no-plots"], check=True, timeout=600,
                   capture_output=True)
    csv = os.path.join(work, "b200-like.csv")
    with open(csv, "w") as f:
        f.write("kind,bytes,op_us\nallgather,402176,21.0\n")
    out = os.path.join(work, "predict")
    done = subprocess.run([k25comm, "predict", os.path.join(capture, "capture.json"), "--with", csv, "--no-plots",
                           "--out", out], capture_output=True, text=True, timeout=600)
    print(done.stdout, done.stderr)
    if done.returncode != 0:
        return 1
    with open(os.path.join(out, "predict.json")) as f:
        result = json.load(f)
    failures = []
    if result["base"]["ranks"] != 8:
        failures.append(f"base ranks {result['base']['ranks']}, not the group size 8")
    kinds = {k["kind"]: k for k in result["base"]["levels"][0]["kinds"]}
    if kinds.get("allgather", {}).get("bytes") != EXPECTED_BYTES:
        failures.append(f"AllGather bytes {kinds.get('allgather', {}).get('bytes')}, not {EXPECTED_BYTES}")
    level = result["alternatives"][0]["levels"][0]
    estimate = level["estimates"]["back-to-back"]
    gather = [k for k in estimate["kinds"] if k["kind"] == "allgather"] if estimate else []
    if not gather or gather[0]["source"] != "measured" or gather[0]["alt_op_us"] != 21.0:
        failures.append(f"AllGather not read at its measured size: {gather}")
    for failure in failures:
        print("FAILED: " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
