#!/bin/bash
# --dry-run with graph mode shows the padding: the sweep line, the plans of the padded counts and, in plan.json,
# which mode measures each plan for which counts asked.
# usage: dry_run_graph_padding.sh K25COMM CONFIG OUT_DIR
set -u
k25comm=$1 config=$2 out=$3
rm -rf "$out"
output=$("$k25comm" --dry-run --ranks 2 --sizes "$config" --tokens 3,5,600 --modes eager,graph --out "$out" 2>&1)
rc=$?
echo "$output"
[ "$rc" = 0 ] || { echo "FAIL: exit code $rc"; exit 1; }
want="# graph mode pads token counts to capture sizes (sweep.graph_sizes): 3 -> 4, 5 -> 8; 600 above the largest capture size 512: not padded (vLLM runs such a batch eagerly)"
grep -qxF -- "$want" <<<"$output" || { echo "FAIL: no line '$want'"; exit 1; }
python3 - "$out/plan.json" <<'PY' || exit 1
import json, sys
plan = json.load(open(sys.argv[1]))
got = [(p["tokens"], [(m["mode"], m["requested_tokens"]) for m in p["measured_for"]]) for p in plan["plans"]]
want = [(3, [("eager", [3])]), (4, [("graph", [3])]), (5, [("eager", [5])]), (8, [("graph", [5])]),
        (600, [("eager", [600]), ("graph", [600])])]
assert got == want, got
# The padded plan holds the padded count's bytes: smoke's hidden 256 in bf16, 4 and 8 tokens.
allreduce = {p["tokens"]: next(ph for ph in p["phases"] if ph["phase"] == "allreduce") for p in plan["plans"]}
assert allreduce[4]["ops"][0]["bytes"] == 4 * 256 * 2, allreduce[4]["ops"][0]
assert allreduce[8]["ops"][0]["bytes"] == 8 * 256 * 2, allreduce[8]["ops"][0]
assert plan["config"]["sweep"]["graph_sizes"][:5] == [1, 2, 4, 8, 16]
print("ok: plans", [t for t, _ in got], "with the padding of each")
PY
