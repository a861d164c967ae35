# Sourced by the capture command's end-to-end checks: a fresh output folder, fail(), python, and the k25comm
# replay run they compare with (the smoke model, host transport, one rank, eager, tokens 1, 2, 4) in $out/replay.
# Needs k25comm, src and out set by the caller.
python=$(command -v /usr/bin/python3 || command -v python3)
rm -rf "$out"
mkdir -p "$out"
fail() { echo "FAIL: $*"; exit 1; }
# check_plots DIR PNG...: each plot is a PNG of over 1000 bytes in DIR and DIR/capture.md links it. tools/setup
# installs python3-matplotlib, so a missing plot is a failure, never a skip.
check_plots() {
  local dir=$1 png magic
  shift
  "$python" -c "import matplotlib" 2>/dev/null || fail "$python cannot import matplotlib (tools/setup installs python3-matplotlib)"
  for png in "$@"; do
    [ "$(stat -c %s "$dir/$png" 2>/dev/null || echo 0)" -gt 1000 ] || fail "$dir/$png missing or under 1000 bytes"
    magic=$(head -c 8 "$dir/$png" | od -An -tx1 | tr -d ' \n')
    [ "$magic" = 89504e470d0a1a0a ] || fail "$dir/$png is not a PNG"
    grep -qF "]($png)" "$dir/capture.md" || fail "$dir/capture.md does not link $png"
  done
}

"$k25comm" --sizes "$src/configs/smoke.yaml" --backend mpi --phases allreduce --modes eager --tokens 1,2,4 \
  --iters 3 --warmup 1 --op-iters 2 --time-budget 1 --no-check --out "$out/replay" >"$out/replay.log" 2>&1 ||
  { cat "$out/replay.log"; fail "the replay run failed"; }
export K25_PLOT_CAPTURE_SCRIPT=$src/tools/plot-capture
