#!/bin/bash
# tools/check-stage-links on three small stage libraries: plan calls common (down: allowed) and report (a later
# stage: one violation), report calls plan (down: allowed), and both hold a copy of one inline function.
# Usage: check_stage_links_selftest.sh PYTHON CHECKER CXX AR WORK_DIR
set -u
python=$1 checker=$2 cxx=$3 ar=$4 work=$5
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
inline='inline int shared_inline(int x) { return x + 1; }'
echo 'int common_fn() { return 0; }' >common.cpp
echo "int common_fn(); int report_fn(); $inline int plan_fn() { return common_fn() + report_fn() + shared_inline(1); }" >plan.cpp
echo "int plan_fn(); $inline int report_fn() { return shared_inline(2); } int report_user() { return plan_fn(); }" >report.cpp
for stage in common plan report; do
  "$cxx" -c -O0 "$stage.cpp" -o "$stage.o" && "$ar" rcs "lib$stage.a" "$stage.o" || exit 1
done
out=$("$python" "$checker" common=libcommon.a plan=libplan.a report=libreport.a)
rc=$?
echo "$out"
[ "$rc" -eq 1 ] || { echo "FAIL: exit $rc, expected 1"; exit 1; }
grep -qx "plan calls report's report_fn() (report is a later stage)" <<<"$out" || { echo "FAIL: the call up not named"; exit 1; }
[ "$(grep -c . <<<"$out")" -eq 1 ] || { echo "FAIL: a call down or an inline copy was reported"; exit 1; }
"$python" "$checker" common=libcommon.a nowhere=libplan.a >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: an unknown stage is not exit 2"; exit 1; }
echo "PASS"
