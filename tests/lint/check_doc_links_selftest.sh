#!/bin/bash
# tools/check-doc-links on a small tree: good links of each kind, one link to a missing file, one to a missing
# heading, and links in code that must not be checked.
# Usage: check_doc_links_selftest.sh PYTHON CHECKER WORK_DIR
set -u
python=$1 checker=$2 tree=$3
rm -rf "$tree" && mkdir -p "$tree/docs" || exit 1
cat >"$tree/README.md" <<'MD'
# Tool

## Two commands (fresh Debian 12, as root)

See [the topic](docs/topic.md), [its part](docs/topic.md#a-part-with-toolsname), [above](#two-commands-fresh-debian-12-as-root),
[the web](https://example.com/x.md#nothing) and [the folder](docs).
A [missing file](docs/gone.md) and a [missing heading](docs/topic.md#no-such-part).
In code: `[not a link](docs/gone.md)`

    [indented code](docs/gone.md)

```
[fenced code](docs/gone.md)
```
MD
cat >"$tree/docs/topic.md" <<'MD'
# Topic

## A part with `tools/name`

Back to [the commands](../README.md#two-commands-fresh-debian-12-as-root).
MD
out=$("$python" "$checker" "$tree/README.md" "$tree/docs")
rc=$?
echo "$out"
[ "$rc" -eq 1 ] || { echo "FAIL: exit $rc, expected 1"; exit 1; }
grep -q "README.md:7: link (docs/gone.md): no such file" <<<"$out" || { echo "FAIL: the missing file not named"; exit 1; }
grep -q "README.md:7: link (docs/topic.md#no-such-part): no heading" <<<"$out" ||
  { echo "FAIL: the missing heading not named"; exit 1; }
[ "$(grep -c . <<<"$out")" -eq 2 ] || { echo "FAIL: a good link or a link in code was reported"; exit 1; }
echo "PASS"
