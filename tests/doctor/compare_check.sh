#!/bin/bash
# doctor --compare of two fixture nodes (the PLX node before and after NCCL's ACS fix) lists exactly their
# differences, from the doctor outputs' folders; and of two captures the current `k25comm capture` wrote (from the
# trace fixtures, never hand-made), the all-reduce backend that ran.
# Usage: compare_check.sh K25COMM ROOTS DATA OUT_DIR TRACE_FIXTURES INSPECTOR_LOGS
set -u
bin=$1 roots=$2 data=$3 out=$4 traces=$5 logs=$6
rm -rf "$out"
for node in plx-8gpu-acs plx-8gpu-acs-off; do
  "$bin" doctor --root "$roots/$node" --host "$node" --no-measure --no-plots --out "$out/$node" >/dev/null ||
    { echo "FAIL: doctor on $node"; exit 1; }
done
check() {  # check NAME EXPECTED ARGS...
  local name=$1 expected=$2
  shift 2
  local got
  got=$("$bin" doctor --compare "$@" 2>&1)
  local rc=$?
  echo "$got"
  [ "$rc" = 0 ] || { echo "FAIL: $name: exit $rc"; exit 1; }
  # The headlines (first two lines) are checked elsewhere; the differences must be exactly these.
  if [ "$(tail -n +3 <<<"$got")" != "$expected" ]; then
    echo "FAIL: $name: the differences are not exactly:"
    echo "$expected"
    exit 1
  fi
  echo "ok: $name"
}
on="redirects (SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-)"
off="no redirect (SrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-)"
expected="6 differences (A | B):"
for bridge in 0000:03:08.0 0000:03:10.0 0000:05:08.0 0000:05:10.0 0000:09:08.0 0000:09:10.0; do
  expected+=$'\n'"ACS: bridge $bridge: $on | $off"
done
check "ACS fixed" "$expected" "$out/plx-8gpu-acs" "$out/plx-8gpu-acs-off"
check "same node" "no difference" "$out/plx-8gpu-acs" "$out/plx-8gpu-acs/doctor.json"
for input in "$traces/custom-ar-tp2" "$traces/backends-tp8" "$logs"; do
  name=$(basename "$input")
  "$bin" capture "$input" --no-plots --out "$out/captures/$name" >"$out/capture-$name.log" 2>&1 ||
    { cat "$out/capture-$name.log"; echo "FAIL: k25comm capture $input"; exit 1; }
done
captures=$out/captures
check "backends" "5 differences (A | B):
backend that ran: AllGather (size unknown): NCCL (RING_LL kernel) | -
backend that ran: AllReduce (size unknown): vLLM custom all-reduce (1-stage) | FlashInfer all-reduce fusion (oneshot), MSCCL++ (LL 1node), NCCL symmetric (RSxLD_AGxST kernel), TRT-LLM all-reduce fusion (oneshot), torch symmetric memory (two-shot), vLLM custom all-reduce (2-stage), vLLM quick all-reduce (twoshot)
backend that ran: AllReduce 14336 B: - | NCCL (RING_LL kernel)
backend that ran: Combine (size unknown): - | NCCL EP (ll)
backend that ran: Dispatch (size unknown): - | DeepEP (internode_ll), pplx-kernels" \
  "$captures/custom-ar-tp2/capture.json" "$captures/backends-tp8/capture.json"
# A capture of NCCL Inspector logs alone has no trace, so no backend: nothing to compare.
check "capture without backends" "no difference" "$captures/custom-ar-tp2/capture.json" \
  "$captures/$(basename "$logs")/capture.json"
