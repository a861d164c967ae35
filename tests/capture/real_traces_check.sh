#!/bin/bash
# Runs the capture tests on the real traces of other projects ([real-traces]), from K25_TRACES_DIR or the folder
# given (../shared/traces beside the checkout); exits 77 (ctest: skipped), saying so, where it is absent.
# usage: real_traces_check.sh K25_CAPTURE_TESTS DEFAULT_DIR
set -u
tests=$1
dir=${K25_TRACES_DIR:-$2}
if [ ! -d "$dir" ]; then
  echo "skipped: no real traces at $dir (../shared/traces beside the checkout, or set K25_TRACES_DIR)"
  exit 77
fi
K25_TRACES_DIR=$dir exec "$tests" "[real-traces]"
