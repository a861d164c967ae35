#!/bin/bash
# Requirement: an output directory that cannot be created, and a disk that fills up during the run (a small
# tmpfs where this machine lets us mount one, else write_fault.so, an LD_PRELOAD shim whose writes into the
# directory fail with ENOSPC past a byte count): a clear message, exit code 3, no report.json left behind.
# usage: output_trouble.sh K25COMM MPIRUN CONFIG WORKDIR WRITE_FAULT_SO     (K25_NO_TMPFS=1: use the shim)
set -uo pipefail
K25COMM=$1 MPIRUN=$2 config=$3 work=$4 shim=$5
here=$(dirname "$0")
source "$here/lib.sh"
rm -rf "$work"
mkdir -p "$work"
failures=0

# expect_trouble NAME OUT TEXT_REGEX [wrapper...] -- runs the job to its end (60 s at most) and checks it.
expect_trouble() {
  local name=$1 out=$2 text=$3
  shift 3
  local log="$work/$name.log"
  timeout --kill-after=5 60 "$@" "$MPIRUN" -np 2 --oversubscribe "$K25COMM" --sizes "$config" --out "$out" \
    ${EXTRA_FLAGS:-} >"$log" 2>&1
  local rc=$?
  echo "--- $name: exit code $rc"
  cat "$log"
  local ok=1
  [ "$rc" -eq 3 ] || { echo "FAIL: $name: exit code $rc, expected 3"; ok=0; }
  grep -qE "k25comm: error: .*($text)" "$log" || { echo "FAIL: $name: no message matching '$text'"; ok=0; }
  grep -qE "Segmentation|terminate called|core dumped" "$log" && { echo "FAIL: $name: crashed"; ok=0; }
  python3 "$here/check_outputs.py" "$out" no-report || ok=0
  [ "$ok" -eq 1 ] && echo "ok: $name" || failures=$((failures + 1))
}

# 1. A directory that cannot be created: its parent is a regular file.
touch "$work/a-file"
expect_trouble cannot_create "$work/a-file/out" "cannot create output directory"

# 2. A full disk, at two sizes: full while the journal grows during the sweep (4 KiB), and full while the
#    reports are written at the end (24 KiB without trace.json). An earlier run's report.json in the directory
#    must not survive either.
mounted=""
cleanup() { [ -n "$mounted" ] && umount "$mounted" 2>/dev/null; }
trap cleanup EXIT
for case in 4:: 24:--no-trace:report.json; do
  IFS=: read -r size_kb EXTRA_FLAGS fault_name <<<"$case"
  export EXTRA_FLAGS
  disk="$work/disk-$size_kb"
  mkdir -p "$disk"
  if [ -z "${K25_NO_TMPFS:-}" ] && [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o "size=${size_kb}k" tmpfs "$disk" 2>/dev/null; then
    mounted=$disk
    mkdir -p "$disk/out"
    echo '{"schema_version": 1, "run": {"complete": true}}' >"$disk/out/report.json"
    expect_trouble "tmpfs_${size_kb}k" "$disk/out" "No space left on device"
    ls -la "$disk/out"
    umount "$disk" && mounted=""
  else
    # The shim counts bytes, not pages: the end-of-run case fails report.json itself after 1 KiB.
    bytes=$((size_kb * 1024))
    [ -n "$fault_name" ] && bytes=1024
    echo "note: cannot mount a tmpfs here; ENOSPC injected after $bytes bytes into ${fault_name:-any file}"
    mkdir -p "$disk/out"
    echo '{"schema_version": 1, "run": {"complete": true}}' >"$disk/out/report.json"
    expect_trouble "injected_${size_kb}k" "$disk/out" "No space left on device" \
      env LD_PRELOAD="$shim" K25_FAULT_DIR="$(cd "$disk/out" && pwd)" K25_FAULT_BYTES=$bytes \
      ${fault_name:+K25_FAULT_NAME=$fault_name}
  fi
done

[ "$failures" -eq 0 ] || { echo "FAIL: $failures case(s)"; exit 1; }
echo "ok: every output trouble ended with exit 3, a message and no report.json"
