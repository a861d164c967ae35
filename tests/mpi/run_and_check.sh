#!/bin/bash
# Runs k25comm under mpirun on a config and checks report.json and journal.jsonl with check_report.py.
# usage: run_and_check.sh MPIRUN RANKS K25COMM CONFIG OUTDIR PYTHON CHECKER [extra k25comm flags...]
set -euo pipefail
mpirun=$1 ranks=$2 k25comm=$3 config=$4 out=$5 python=$6 checker=$7
shift 7
flags=() checks=()
while [ $# -gt 0 ]; do
  case $1 in
    --dtype|--copies|--routing|--tokens|--phases) flags+=("$1" "$2"); checks+=("$1" "$2"); shift 2 ;;
    --expect-slowest) checks+=("$1" "$2"); shift 2 ;;
    --in-place) flags+=("$1"); checks+=("$1"); shift ;;
    --expect-note) checks+=("$1" "$2"); shift 2 ;;
    *) flags+=("$1"); shift ;;
  esac
done
rm -rf "$out"
"$mpirun" -np "$ranks" --oversubscribe "$k25comm" --sizes "$config" --out "$out" "${flags[@]}" | tee "$out.console.txt"
"$python" "$checker" "$out" --ranks "$ranks" --console "$out.console.txt" "${checks[@]}"
