#!/bin/bash
# Runs tools/plot-report on one or two reports and checks that the four plots exist and are non-empty PNG files.
# usage: check_plots.sh PYTHON PLOT_SCRIPT OUT_DIR REPORT.json [OTHER.json]
set -euo pipefail
python=$1 script=$2 out=$3
shift 3
if ! "$python" -c "import matplotlib" 2>/dev/null; then
  echo "FAIL: $python cannot import matplotlib (tools/setup installs python3-matplotlib)"
  exit 1
fi
rm -rf "$out"
"$python" "$script" "$@" --out "$out"
status=0
for name in burst_vs_tokens.png alltoall_vs_tokens.png serve_vs_concurrency.png attribution.png; do
  file=$out/$name
  if [ ! -s "$file" ]; then
    echo "FAIL: $file missing or empty"; status=1; continue
  fi
  if [ "$(head -c 8 "$file" | od -An -tx1 | tr -d ' \n')" != "89504e470d0a1a0a" ]; then
    echo "FAIL: $file is not a PNG"; status=1; continue
  fi
  echo "ok: $file ($(stat -c %s "$file") bytes)"
done
exit $status
