# shellcheck shell=bash
# Finding a test's own processes (source it): by a variable in their environment or a file of theirs open, in one
# pass over /proc. A loop that starts `tr | grep` for each process costs two process starts per process on the
# machine: 25 s at load 8 with 176 processes, where one grep over every environ file takes 0.3 s.
#
#   pids_with_env NAME=VALUE     the pids whose environment holds NAME=VALUE exactly, one a line
#   pids_with_open PREFIX        the pids holding a file open whose path starts with PREFIX, one a line
#   environ_has PID NAME=VALUE   whether process PID's environment holds NAME=VALUE exactly
#   cmdline_of PID               process PID's command line, its arguments joined by spaces

pids_with_env() {
  local file
  for file in $(grep -lzxF -- "$1" /proc/[0-9]*/environ 2>/dev/null); do
    file=${file#/proc/}
    echo "${file%/environ}"
  done
}

pids_with_open() {
  find /proc/[0-9]*/fd -mindepth 1 -maxdepth 1 -lname "$1*" 2>/dev/null | awk -F/ '!seen[$3]++ { print $3 }'
}

environ_has() { grep -qzxF -- "$2" "/proc/$1/environ" 2>/dev/null; }

cmdline_of() { tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null; }
