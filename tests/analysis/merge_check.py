#!/usr/bin/env python3
"""`k25comm report COMM --serve SERVE` never overwrites an input (checksums before and after), writes into a new
folder it names (or --out), refuses an --out where it would replace an input (exit 2), and the merged notes agree
with the data (no "serve phase skipped" once serve results are in; a served model that is not the replayed one
noted and tagged).
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("k25comm", metavar="K25COMM", help="the binary")
parser.add_argument("data", metavar="DATA_DIR", help="tests/analysis/data (pcie-report.json, nvlink-report.json)")
parser.add_argument("work", metavar="WORK_DIR", help="scratch folder, emptied first")
args = parser.parse_args()
k25comm, data, work = args.k25comm, args.data, args.work


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def run(*args):
    done = subprocess.run([k25comm, "report", *args], capture_output=True, text=True, timeout=120)
    print(f"$ k25comm report {' '.join(args)}  -> exit {done.returncode}\n{done.stdout}{done.stderr}")
    return done


shutil.rmtree(work, ignore_errors=True)
os.makedirs(os.path.join(work, "comm"))
os.makedirs(os.path.join(work, "serve"))
with open(os.path.join(data, "pcie-report.json")) as f:
    comm = json.load(f)
skipped = "no endpoint configured (serve.endpoint or --endpoint)"
comm["serve"] = {"ran": False, "skipped_reason": skipped, "levels": []}
comm["attribution"] = []
comm["run"]["notes"] = ["serve phase skipped: " + skipped]
comm_path = os.path.join(work, "comm", "report.json")
with open(comm_path, "w") as f:
    json.dump(comm, f, indent=2)
serve_path = os.path.join(work, "serve", "report.json")
shutil.copy(os.path.join(data, "nvlink-report.json"), serve_path)
before = {comm_path: digest(comm_path), serve_path: digest(serve_path)}


def inputs_unchanged(when):
    for path, value in before.items():
        if digest(path) != value:
            fail(f"{when}: {path} changed (checksum)")


done = run(comm_path, "--serve", serve_path)
if done.returncode != 0:
    fail(f"merge exited {done.returncode}")
inputs_unchanged("after a merge without --out")
merged_dir = os.path.join(work, "comm", "with-serve")
if merged_dir not in done.stdout or "the inputs are unchanged" not in done.stdout:
    fail("the merge does not name the folder it wrote to")
with open(os.path.join(merged_dir, "report.json")) as f:
    merged = json.load(f)
if not merged["serve"]["ran"] or len(merged["serve"]["levels"]) != 5:
    fail("the merged report lacks the serve levels")
if any("skipped" in note for note in merged["run"]["notes"]):
    fail(f"the merged notes still say the serve phase was skipped: {merged['run']['notes']}")
if not merged["attribution"]:
    fail("no attribution in the merged report")
with open(os.path.join(merged_dir, "report.md")) as f:
    if "skipped" in f.read():
        fail("the merged report.md says the serve phase was skipped")
for name in ("results.csv", "serve.csv"):
    if not os.path.isfile(os.path.join(merged_dir, name)):
        fail(f"no {name} beside the merged report")

for target in (os.path.join(work, "comm"), os.path.join(work, "serve")):
    done = run(comm_path, "--serve", serve_path, "--out", target)
    if done.returncode != 2 or "would write over its input" not in done.stderr:
        fail(f"--out {target}: expected exit 2 refusing to overwrite an input")
    inputs_unchanged(f"after --out {target}")

elsewhere = os.path.join(work, "merged-elsewhere")
done = run(comm_path, "--serve", serve_path, "--out", elsewhere)
if done.returncode != 0 or not os.path.isfile(os.path.join(elsewhere, "report.json")):
    fail("--out elsewhere did not write the merged report there")
inputs_unchanged("after --out elsewhere")

# Issue 21 item 3: a serve run whose endpoint served another model than the replayed one (a mock's "gpt-5.2")
# merges, with a note and a headline tag saying so.
with open(serve_path) as f:
    foreign = json.load(f)
foreign["serve"]["model"] = "gpt-5.2"
foreign_path = os.path.join(work, "serve", "foreign.json")
with open(foreign_path, "w") as f:
    json.dump(foreign, f)
done = run(comm_path, "--serve", foreign_path, "--out", os.path.join(work, "foreign"))
if done.returncode != 0:
    fail(f"merging a foreign served model exited {done.returncode}")
with open(os.path.join(work, "foreign", "report.json")) as f:
    merged = json.load(f)
model = merged["run"]["config"]["model"]["name"]
note = f"served model: the endpoint served 'gpt-5.2', the replay is of {model}"
if not any(n.startswith(note) for n in merged["run"]["notes"]):
    fail(f"no note that the served model is not {model}: {merged['run']['notes']}")
if not all(f"served model gpt-5.2, not {model}" in sentence for sentence in merged["headline"]):
    fail(f"the headline does not carry the served model: {merged['headline']}")
if f"served model gpt-5.2, not {model}" not in done.stdout:
    fail("the merge's headline on the console lacks the tag")
print("ok: the merge wrote to a new folder, refused to overwrite its inputs, and its notes agree with its data")
