#!/usr/bin/env python3
"""Checks a decode-mode run of configs/smoke-decode.yaml (report.json, console): every decode point exact
(wrong == 0), its configured gaps worked out by hand from the config, measured gaps at least as long as
configured (a busy wait ends no earlier than its length), comm = step minus gaps, the join cost against the eager
point of the same tokens. With --layer-gap-us, the compute per layer the run was given (--gaps-from)."""
import argparse
import json
import math
import sys


def fail(message):
    print("check_decode: " + message)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--ranks", type=int, required=True)
    parser.add_argument("--console", required=True)
    parser.add_argument("--layer-gap-us", type=float, default=300.0)
    parser.add_argument("--expect-note", default="")
    args = parser.parse_args()
    report = json.load(open(f"{args.out}/report.json"))
    console = open(args.console).read()
    notes = report["run"]["notes"]
    if not any(n.startswith("decode mode: before each op a compute gap of 100 us") for n in notes):
        fail(f"no decode-mode note in {notes}")
    if args.expect_note and not any(args.expect_note in n for n in notes):
        fail(f"no note with {args.expect_note!r} in {notes}")
    config = report["run"]["config"]["sweep"]
    if not math.isclose(config["decode_layer_gap_us"], args.layer_gap_us, rel_tol=1e-9):
        fail(f"decode_layer_gap_us {config['decode_layer_gap_us']}, expected {args.layer_gap_us}")

    # smoke: 4 layers, 2 AllReduces per layer, 3 MoE layers (one dispatch and one combine each).
    layer = args.layer_gap_us
    configured = {"allreduce": 8 * (100 + layer / 2), "dispatch": 3 * (100 + layer), "combine": 3 * (100 + layer)}
    ops = {"allreduce": 8, "dispatch": 3, "combine": 3}
    results = report["results"]
    eager = {(r["phase"], r["tokens"]): r for r in results if r["mode"] == "eager"}
    decode = [r for r in results if r["mode"] == "decode"]
    if len(decode) != 2 * 3:
        fail(f"{len(decode)} decode results, expected 6 (2 token counts x 3 phases)")
    for r in decode:
        where = f"{r['phase']} at {r['tokens']} tokens"
        d = r.get("decode")
        if not d:
            fail(f"{where}: no decode figures")
        if r["wrong"] != 0 or not r["checked"]:
            fail(f"{where}: wrong {r['wrong']}, checked {r['checked']}")
        if r["op_us_source"] != "decode_trials" or r["op_iterations"] != r["iterations"]:
            fail(f"{where}: op_us from {r['op_us_source']} over {r['op_iterations']} trials")
        if r["ops_per_step"] != ops[r["phase"]]:
            fail(f"{where}: {r['ops_per_step']} ops")
        if not math.isclose(d["gap_configured_us"], configured[r["phase"]], rel_tol=1e-9):
            fail(f"{where}: configured gaps {d['gap_configured_us']}, expected {configured[r['phase']]}")
        skew_room = 40.0 * ops[r["phase"]]
        if not (d["gap_configured_us"] < d["gap_expected_us"] < d["gap_configured_us"] + skew_room):
            fail(f"{where}: rank 0's gaps {d['gap_expected_us']} not within the skew of {d['gap_configured_us']}")
        if d["gap_measured_us"]["min"] < d["gap_expected_us"] - 1e-3:
            fail(f"{where}: measured gaps {d['gap_measured_us']['min']} shorter than configured {d['gap_expected_us']}")
        if not (0 <= d["comm_us"]["p50"] <= r["step_us"]["p50"]):
            fail(f"{where}: comm {d['comm_us']['p50']} outside [0, step {r['step_us']['p50']}]")
        twin = eager.get((r["phase"], r["tokens"]))
        if twin is None:
            fail(f"{where}: no eager twin")
        expected_join = r["op_us"]["p50"] / twin["op_us"]["p50"]
        if d["join_cost"] is None or not math.isclose(d["join_cost"], expected_join, rel_tol=1e-9):
            fail(f"{where}: join_cost {d['join_cost']}, expected {expected_join}")
        if f"decode {r['phase']} at {r['tokens']} tokens: comm" not in console:
            fail(f"{where}: no decode line on the console")
    for r in results:
        if r["mode"] == "eager" and "decode" in r:
            fail("an eager result carries decode figures")
    print(f"check_decode: {len(decode)} decode points exact, gaps as configured, join costs "
          + ", ".join(f"{r['phase']}@{r['tokens']}={r['decode']['join_cost']:.2f}" for r in decode))


main()
