#!/bin/bash
# cmake --install into a fresh prefix, then the installed k25comm run from a folder outside the source tree: it
# takes PREFIX/share/k25comm/configs/kimi.yaml as its default config (and --help says so), and finds its plot
# scripts in PREFIX/share/k25comm/tools for `report` and `capture`. No source path is compiled into the binary.
# Usage: install_check.sh CMAKE BUILD_DIR SOURCE_DIR WORK_DIR
set -u
cmake=$1 build=$2 source=$3 work=$4
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work"
mkdir -p "$work/elsewhere"
prefix=$work/prefix
"$cmake" --install "$build" --prefix "$prefix" || fail "cmake --install failed"

[ -x "$prefix/bin/k25comm" ] || fail "no executable $prefix/bin/k25comm"
for config in "$source"/configs/*.yaml; do
  cmp -s "$config" "$prefix/share/k25comm/configs/$(basename "$config")" || fail "$(basename "$config") not installed"
done
for tool in plot-report plot-capture plot-predict plot-doctor; do
  [ -x "$prefix/share/k25comm/tools/$tool" ] || fail "no executable $prefix/share/k25comm/tools/$tool"
done

# No path of the source or build tree in the binary's data (debug info aside). A sanitizer build's runtime
# data names each instrumented source file whatever the prefix maps say: not checked there.
if nm -D "$prefix/bin/k25comm" 2>/dev/null | grep -qE "__(asan|ubsan)_"; then
  echo "sanitizer build: the .rodata check is left out"
else
  objcopy -O binary --only-section=.rodata "$prefix/bin/k25comm" "$work/rodata" || fail "objcopy failed"
  for tree in "$(realpath "$source")" "$(realpath "$build")"; do
    grep -qaF -- "$tree" "$work/rodata" && fail "the binary's .rodata holds the path $tree"
  done
fi

cd "$work/elsewhere" || exit 1
unset K25_PLOT_SCRIPT K25_PLOT_CAPTURE_SCRIPT
installed_config=$prefix/share/k25comm/configs/kimi.yaml
help=$("$prefix/bin/k25comm" --help 2>&1) || fail "--help failed: $help"
grep -qF "  $installed_config  (found: the default)" <<<"$help" || fail "--help does not name $installed_config:
$help"

# No --sizes: the installed kimi.yaml (its model in plan.json).
output=$("$prefix/bin/k25comm" --dry-run --ranks 8 --tokens 1 --out "$work/dry" 2>&1)
rc=$?
echo "$output"
[ "$rc" = 0 ] || fail "--dry-run without --sizes: exit $rc"
grep -q '"name": "Kimi-K2.5"' "$work/dry/plan.json" || fail "plan.json is not kimi.yaml's plan"

# Plot scripts found beside the binary: `report` runs plot-report, `capture` plot-capture.
plots_made() {  # plots_made NAME K25COMM_ARGS...: exit 0, no "not found", PNGs in $work/NAME
  local name=$1
  shift
  output=$("$prefix/bin/k25comm" "$@" --out "$work/$name" 2>&1)
  rc=$?
  echo "$output"
  [ "$rc" = 0 ] || fail "$name: exit $rc"
  grep -q "not found" <<<"$output" && fail "$name: the plot script was not found"
  ls "$work/$name"/*.png >/dev/null 2>&1 || fail "$name: no plots in $work/$name"
}
plots_made report report "$source/tests/analysis/data/pcie-report.json"
plots_made capture capture "$source/tests/capture/data/tp2-v40"

# A binary with no shared files beside it: exit 2, naming every path it tried.
mkdir -p "$work/lonely/bin"
cp "$prefix/bin/k25comm" "$work/lonely/bin/k25comm"
output=$("$work/lonely/bin/k25comm" --dry-run --out "$work/lonely-dry" 2>&1)
rc=$?
echo "$output"
[ "$rc" = 2 ] || fail "no default config: exit $rc, expected 2"
wanted="k25comm: error: no --sizes given and no default config found; looked for configs/kimi.yaml, $work/lonely/share/k25comm/configs/kimi.yaml, $work/lonely/configs/kimi.yaml"
[ "$output" = "$wanted" ] || fail "no default config: expected
$wanted"
echo "ok: the installed k25comm finds its config and plot scripts under $prefix/share/k25comm"
