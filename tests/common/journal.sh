#!/bin/bash
# Journal counting for the tests that watch a running k25comm job (source it): probes for tests/common/wait.sh.

# result_lines JOURNAL: how many result records the journal holds so far.
result_lines() {
  local n
  n=$(grep -c '"type":"result"' "$1" 2>/dev/null)
  echo "${n:-0}"
}

# has_results JOURNAL COUNT: whether the journal holds COUNT result records yet.
has_results() { [ "$(result_lines "$1")" -ge "$2" ]; }
