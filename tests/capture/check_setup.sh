# Sourced by the capture command's end-to-end checks: a fresh output folder, fail(), python, and the k25comm
# replay run they compare with (the smoke model, host transport, one rank, eager, tokens 1, 2, 4) in $out/replay.
# Needs k25comm, src and out set by the caller.
python=$(command -v /usr/bin/python3 || command -v python3)
rm -rf "$out"
mkdir -p "$out"
fail() { echo "FAIL: $*"; exit 1; }

"$k25comm" --sizes "$src/configs/smoke.yaml" --backend mpi --phases allreduce --modes eager --tokens 1,2,4 \
  --iters 3 --warmup 1 --op-iters 2 --time-budget 1 --no-check --out "$out/replay" >"$out/replay.log" 2>&1 ||
  { cat "$out/replay.log"; fail "the replay run failed"; }
export K25_PLOT_CAPTURE_SCRIPT=$src/tools/plot-capture
