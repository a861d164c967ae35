#!/bin/bash
# tools/nccl-sweep on the host transport (2 ranks, configs/smoke.yaml): NCCL variables do nothing there, so two
# variants set harmless ones and a third breaks MPI_Init (OMPI_MCA_pml=bogus). Checks the table and sweep.json
# exactly (variants, status, rows, best and gain), the variables each report.json recorded, the baseline without
# the swept variable the environment had, the failed variant shown as failed with its exit code while the others
# ran; then exit 1 when the baseline fails, and exit 2 for malformed variants and --out among k25comm's flags.
# usage: nccl_sweep_check.sh SOURCE_DIR K25COMM MPIRUN WORK_DIR PYTHON
set -u
src=$1 k25comm=$2 mpirun=$3 work=$4 python=$5
sweep=$src/tools/nccl-sweep
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
k25_flags=(--sizes "$src/configs/smoke.yaml" --backend mpi --phases allreduce --tokens 1,4 --iters 5 --warmup 1
           --time-budget 0.5)

# The environment holds a value of a swept variable: the baseline must run without it.
NCCL_PROTO=Simple "$sweep" --np 2 --mpirun "$mpirun" --k25comm "$k25comm" --out "$work/sweep" \
  --variant 'll:NCCL_PROTO=LL' --variant 'ring:NCCL_ALGO=Ring,NCCL_DEBUG=WARN' \
  --variant 'broken:OMPI_MCA_pml=bogus' --timeout 120 -- "${k25_flags[@]}" >"$work/console.txt" 2>&1
rc=$?
cat "$work/console.txt"
[ "$rc" = 0 ] || fail "exit code $rc with a working baseline and one failed variant, expected 0"

"$python" - "$work/sweep" "$work/console.txt" <<'PY' || fail "sweep.json / table check"
import json, os, sys
out, console = sys.argv[1], open(sys.argv[2]).read().splitlines()
sweep = json.load(open(os.path.join(out, "sweep.json")))
variants = [(v["name"], v["env"], v["status"]) for v in sweep["variants"]]
assert variants == [("baseline", {}, "ok"), ("ll", {"NCCL_PROTO": "LL"}, "ok"),
                    ("ring", {"NCCL_ALGO": "Ring", "NCCL_DEBUG": "WARN"}, "ok"),
                    ("broken", {"OMPI_MCA_pml": "bogus"}, "failed")], variants
broken = sweep["variants"][3]
assert broken["exit_code"] not in (0, None), broken["exit_code"]
assert sweep["removed_from_environment"] == {"NCCL_PROTO": "Simple"}, sweep["removed_from_environment"]
# What k25comm recorded in report.json run.env: each variant's own NCCL variables, the baseline none.
recorded = {v["name"]: v["recorded_env"] for v in sweep["variants"][:3]}
assert recorded == {"baseline": {}, "ll": {"NCCL_PROTO": "LL"},
                    "ring": {"NCCL_ALGO": "Ring", "NCCL_DEBUG": "WARN"}}, recorded
for name in ("baseline", "ll", "ring"):
    report = json.load(open(os.path.join(out, name, "report.json")))
    assert report["run"]["transport"] == "mpi" and report["run"]["ranks"] == 2
    assert {k: v for k, v in report["run"]["env"].items() if k.startswith("NCCL_")} == recorded[name]
    assert os.path.isfile(os.path.join(out, name + ".log"))
assert all(not v["notes"] for v in sweep["variants"][:3]), [v["notes"] for v in sweep["variants"]]

rows = [(r["phase"], r["tokens"], r["mode"]) for r in sweep["rows"]]
assert rows == [("allreduce", 1, "eager"), ("allreduce", 4, "eager")], rows
for r in sweep["rows"]:
    p50 = r["op_p50_us"]
    assert list(p50) == ["baseline", "ll", "ring", "broken"], list(p50)
    assert all(p50[n] > 0 for n in ("baseline", "ll", "ring")) and p50["broken"] is None, p50
    best = min(("baseline", "ll", "ring"), key=lambda n: (p50[n], ["baseline", "ll", "ring"].index(n)))
    assert r["best"] == best, (r["best"], best)
    assert abs(r["gain"] - p50["baseline"] / p50[best]) < 1e-3, r["gain"]
    assert r["measured_tokens"] == r["tokens"]

# The console table: the header names every variant, one line per row with the same figures and "failed".
header = next(line for line in console if line.startswith("#") and "phase" in line and "tokens" in line)
assert header.split()[1:] == ["phase", "tokens", "mode", "baseline", "ll", "ring", "broken", "best", "gain"], header
table = [line.split() for line in console if line.startswith("  allreduce")]
assert [cells[:3] for cells in table] == [["allreduce", "1", "eager"], ["allreduce", "4", "eager"]], table
for cells, r in zip(table, sweep["rows"]):
    assert cells[3:6] == [f"{r['op_p50_us'][n]:.2f}" for n in ("baseline", "ll", "ring")], cells
    assert cells[6] == "failed" and cells[7] == r["best"] and cells[8] == f"{r['gain']:.2f}x", cells
assert any("broken" in line and f"failed (exit {broken['exit_code']})" in line for line in console), "status line"
md = open(os.path.join(out, "sweep.md")).read()
assert f"| broken | OMPI_MCA_pml=bogus | failed (exit {broken['exit_code']}) |" in md, md
assert "| allreduce | 4 | eager |" in md, md
print("ok: 4 variants (1 failed with exit", broken["exit_code"], "), rows", rows)
PY

# The baseline fails (the launcher fails every run): exit 1, and sweep.json says so.
"$sweep" --np 2 --mpirun false --k25comm "$k25comm" --out "$work/all-failed" --variant 'll:NCCL_PROTO=LL' \
  -- "${k25_flags[@]}" >"$work/all-failed.txt" 2>&1
rc=$?
cat "$work/all-failed.txt"
[ "$rc" = 1 ] || fail "every run failed: exit $rc, expected 1"
grep -q "the baseline failed (exit 1" "$work/all-failed.txt" || fail "no message about the failed baseline"
"$python" -c "import json,sys; s=json.load(open(sys.argv[1])); assert [v['status'] for v in s['variants']] == ['failed', 'failed'] and s['rows'] == []" \
  "$work/all-failed/sweep.json" || fail "sweep.json of the failed sweep"

# Bad usage: exit 2 with a message, before anything runs.
expect_usage() {  # TEXT ARGS...
  local text=$1
  shift
  output=$("$sweep" --np 2 --mpirun "$mpirun" --k25comm "$k25comm" --out "$work/bad" "$@" 2>&1)
  local code=$?
  [ "$code" = 2 ] || fail "'$*': exit $code, expected 2 ($output)"
  grep -qF -- "$text" <<<"$output" || fail "'$*': message '$output' lacks '$text'"
  [ ! -e "$work/bad/baseline" ] || fail "'$*': a run started"
}
expect_usage "'NCCL_PROTO' in variant 'x' is not VAR=VALUE" --variant 'x:NCCL_PROTO' -- "${k25_flags[@]}"
expect_usage "is not NAME:VAR=VAL[,VAR=VAL...] (no ':')" --variant 'NCCL_PROTO=LL' -- "${k25_flags[@]}"
expect_usage "'baseline' is the variant with nothing set" --variant 'baseline:NCCL_PROTO=LL' -- "${k25_flags[@]}"
expect_usage "variant 'x' is given twice" --variant 'x:A=1' --variant 'x:B=2' -- "${k25_flags[@]}"
expect_usage "--out among k25comm's flags" --variant 'x:A=1' -- "${k25_flags[@]}" --out "$work/elsewhere"
printf '# comment\nok:NCCL_ALGO=Tree\nwrong line\n' >"$work/variants.txt"
expect_usage "$work/variants.txt:3: 'wrong line' is not NAME:VAR=VAL" --variants "$work/variants.txt" -- "${k25_flags[@]}"
echo "ok: nccl-sweep table, sweep.json, failed variant, failed baseline and usage errors"
