#!/usr/bin/env python3
"""predict's first law on the real multi-rank traces: the base's own link as the alternative predicts the base.

For each run of two or more ranks in TRACES_DIR (../shared/traces beside the checkout): `k25comm capture` of its
files, then an alternative CSV of each kind's own transfer after the last rank's start (capture.json
trace.join[].transfer_us p50), at the kind's size (a size the trace does not record is set to 4096 B in a copy
of capture.json: the identity does not depend on it), read by `k25comm predict` twice: with the overlap not said
(the additive end of the range must equal the base step, the overlapping end lie at or below it) and declared
additive (one figure, equal to the base step). Also checks that the base's rank count is the group size.
Exits 0 when every run holds, 1 on a failure (naming it), 77 (skipped) where TRACES_DIR is absent.
Usage: identity_on_traces.py K25COMM TRACES_DIR WORK_DIR
"""
import json
import os
import subprocess
import sys

# Runs of several ranks among the real traces: files, and the group size their world says (0: not said).
RUNS = {
    "dlrm-8ranks": ([f"dlrm-8ranks-rank{r}.pt.trace.json.gz" for r in range(8)], 8),
    "hta-128ranks-sampled": (["hta-128ranks-sampled-rank0.json.gz", "hta-128ranks-sampled-rank1.json.gz"], 128),
    "nsys-2gpu-nccl-nvtx": (["nsys-2gpu-nccl-nvtx.sqlite"], 2),
    "nsys-2gpu-nccl-nvtx-after": (["nsys-2gpu-nccl-nvtx-after.sqlite"], 2),
}
SIZE_WHERE_UNKNOWN = 4096


def run(command, what):
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"{what} exited {done.returncode}: {done.stdout[-2000:]}{done.stderr[-2000:]}")
    return done.stdout


def base_levels(capture):
    """The step groups over all ranks predict reads: decode, else unknown phase, else prefill."""
    groups = [g for g in capture["trace"]["groups"] if g.get("rank") is None]
    for phase in ("decode", "unknown", "prefill"):
        chosen = [g for g in groups if g["phase"] == phase]
        if chosen:
            return chosen
    return []


def own_transfers(capture):
    """CSV rows (kind, bytes, op_us) of each kind's own transfer; sizes filled in where the trace has none."""
    rows = []
    join = capture["trace"]["join"]["groups"]
    for group in base_levels(capture):
        for kind in group["kinds"]:
            if kind.get("bytes") is None:
                kind["bytes"] = SIZE_WHERE_UNKNOWN
            matches = [j for j in join if j["kind"] == kind["kind"] and j["phase"] == group["phase"]
                       and j.get("batch") == group.get("batch")]
            if not matches:
                raise RuntimeError(f"no join group for {kind['kind']}")
            rows.append((kind["kind"], kind["bytes"], matches[0]["transfer_us"]["p50"]))
    return rows


def check_run(k25comm, name, files, group_size, traces, work):
    out = os.path.join(work, name)
    run([k25comm, "capture", *[os.path.join(traces, f) for f in files], "--out", out, "--no-plots"], "capture")
    with open(os.path.join(out, "capture.json")) as f:
        capture = json.load(f)
    rows = own_transfers(capture)
    sized = os.path.join(out, "capture-sized.json")
    with open(sized, "w") as f:
        json.dump(capture, f)
    failures = []
    for declared in ("", "additive"):
        csv = os.path.join(out, f"own-link{'-' + declared if declared else ''}.csv")
        with open(csv, "w") as f:
            f.write("kind,bytes,op_us,overlap\n")
            for kind, size, op_us in rows:
                f.write(f"{kind},{size},{max(op_us, 0.1)},{declared}\n")
        predicted_dir = os.path.join(out, f"predict{'-' + declared if declared else ''}")
        run([k25comm, "predict", sized, "--with", csv, "--label", "own", "--no-plots", "--out", predicted_dir],
            "predict")
        with open(os.path.join(predicted_dir, "predict.json")) as f:
            result = json.load(f)
        if result["base"]["ranks"] != group_size:
            failures.append(f"base ranks {result['base']['ranks']}, group size {group_size}")
        for level in result["alternatives"][0]["levels"]:
            predicted = level["predicted"]
            if predicted is None:
                failures.append(f"level {level['batch']} refused: {level['refused']}")
                continue
            low, high = predicted["step_us"]
            base = level["base_step_us"]
            if abs(high - base) > 1e-6 * base:
                failures.append(f"{declared or 'undeclared'}: additive end {high} us against the base's {base} us")
            if declared and (predicted["method"] != "additive" or low != high):
                failures.append(f"declared additive, predicted {predicted['method']} {low} .. {high}")
            if not declared and low > base + 1e-6 * base:
                failures.append(f"overlapping end {low} us above the base's {base} us")
            print(f"{name}: T={level['batch']} base {base:.1f} us, own link {predicted['method']} "
                  f"{low:.1f} .. {high:.1f} us")
    return failures


def main(argv):
    if len(argv) != 3:
        print(__doc__)
        return 2
    k25comm, traces, work = argv
    if not os.path.isdir(traces):
        print(f"skipped: no real traces at {traces}")
        return 77
    os.makedirs(work, exist_ok=True)
    failed = 0
    for name, (files, group_size) in RUNS.items():
        if not all(os.path.exists(os.path.join(traces, f)) for f in files):
            print(f"{name}: not in {traces}: left out")
            continue
        try:
            failures = check_run(k25comm, name, files, group_size, traces, work)
        except (RuntimeError, KeyError, OSError, subprocess.TimeoutExpired) as e:
            failures = [str(e)]
        for failure in failures:
            print(f"FAILED {name}: {failure}")
        failed += bool(failures)
    print("identity: " + ("failed" if failed else "the base's own link predicts the base on every run"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
