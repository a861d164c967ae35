#!/bin/bash
# k25comm --help: exit 0, the subcommands, the key options, and where the default config is looked for (the paths
# tried, in order, the one found marked), as the running binary's location gives them; a subcommand's help without it.
# Usage: help_check.sh K25COMM
set -u
bin=$(realpath "$1")
output=$("$bin" --help 2>&1)
rc=$?
echo "$output"
fail() { echo "FAIL: $*"; exit 1; }
[ "$rc" = 0 ] || fail "exit $rc, expected 0"
expect() { grep -qF -- "$1" <<<"$output" || fail "the help does not mention '$1'"; }

for subcommand in compare report capture; do
  grep -qE "^  $subcommand +[A-Za-z]" <<<"$output" || fail "subcommand $subcommand is not listed"
done
for option in --sizes,--config --out --tokens --iters --warmup --time-budget --phases --modes --backend --timeout \
              --dtype --dry-run --ranks --endpoint --concurrency --version --verbose; do
  expect "$option"
done
grep -qF -- "--inject-hang" <<<"$output" && fail "a hidden test-only option is listed"
# A subcommand's help is about the subcommand: not the measuring command's default-config search.
for subcommand in compare report capture; do
  sub_help=$("$bin" $subcommand --help 2>&1) || fail "$subcommand --help exits non-zero"
  grep -qF "Without --sizes" <<<"$sub_help" && fail "$subcommand --help ends with the default-config search"
done

# The default config: ./configs/kimi.yaml, then beside the executable (share/k25comm, then the folder above it);
# the first that exists is marked. Run from an empty folder, so that the first never exists.
above=$(dirname "$(dirname "$(realpath "$bin")")")
expect "Without --sizes, the config is the first of these that exists:"
empty=$(mktemp -d)
search=$(cd "$empty" && "$bin" --help | sed -n '/^Without --sizes/,$p' | tail -n +2)
rmdir "$empty"
wanted="" taken=""
for candidate in configs/kimi.yaml "$above/share/k25comm/configs/kimi.yaml" "$above/configs/kimi.yaml"; do
  mark=""
  if [ -z "$taken" ] && [ "$candidate" != configs/kimi.yaml ] && [ -f "$candidate" ]; then
    taken=$candidate mark="  (found: the default)"
  fi
  wanted+="  $candidate$mark"$'\n'
done
[ -n "$taken" ] || wanted+="(none exists: pass --sizes FILE)"$'\n'
wanted=${wanted%$'\n'}
[ "$search" = "$wanted" ] || fail "the default-config search reads
$search
expected
$wanted"
echo "ok: the help lists the subcommands, the options and the default-config search"
