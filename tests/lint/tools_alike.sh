#!/bin/bash
# Every tool in tools/ follows the command line idiom (docs/development.md), the tools found here, not listed: each
# executable file under tools/ except tools/lib/ (what they share). For each:
#   --help               exit 0, a "usage:" line on stdout
#   --k25-no-such-option exit 2 and one line on stderr that starts with the refusing program's name and names the
#                        option or says "error:" (argparse's, where a required argument is missing first)
#   a bash tool sources tools/lib/usage.sh; a Python tool parses with argparse
# Each runs in an empty folder, with K25COMM set (tools/mpirun-k25comm hands options it does not know to k25comm).
# usage: tools_alike.sh TOOLS_DIR K25COMM WORK_DIR
set -u
tools=$1 work=$3
export K25COMM=$2
rm -rf "$work"
mkdir -p "$work/cwd"
cd "$work/cwd" || exit 1
option=--k25-no-such-option
failures=0 count=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

while read -r tool; do
  name=${tool#"$tools"/}
  count=$((count + 1))
  shebang=$(head -1 "$tool")
  case $shebang in
    *bash*) grep -q 'lib/usage\.sh' "$tool" || fail "$name: a bash tool that does not source tools/lib/usage.sh" ;;
    *python*) grep -q '^import argparse' "$tool" || fail "$name: a Python tool that does not import argparse" ;;
    *) fail "$name: neither bash nor Python ($shebang)" ;;
  esac

  timeout 60 "$tool" --help </dev/null >"$work/help.out" 2>"$work/help.err"
  rc=$?
  [ "$rc" = 0 ] || { cat "$work/help.err"; fail "$name --help: exit $rc, expected 0"; }
  grep -qiE '^ *usage: ' "$work/help.out" || fail "$name --help: no usage line on stdout"

  timeout 60 "$tool" "$option" </dev/null >"$work/unknown.out" 2>"$work/unknown.err"
  rc=$?
  [ "$rc" = 2 ] || { cat "$work/unknown.err"; fail "$name $option: exit $rc, expected 2"; }
  grep -qE "^[A-Za-z0-9_.-]+: (.*$option|error: )" "$work/unknown.err" ||
    { cat "$work/unknown.err"; fail "$name $option: no line naming the program and the option"; }
done < <(find "$tools" -type f -perm -u+x -not -path "$tools/lib/*" | sort)

[ "$count" -ge 20 ] || fail "only $count tools found under $tools"
[ "$failures" = 0 ] || exit 1
echo "ok: $count tools answer --help with a usage line (exit 0) and $option with exit 2"
