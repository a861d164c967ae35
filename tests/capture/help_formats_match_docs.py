#!/usr/bin/env python3
"""`k25comm capture --help`'s list of input formats says what docs/capture.md's generated list says, row by row.

Usage: help_formats_match_docs.py K25COMM DOCS_CAPTURE_MD. Both lists are made from the readers' table of format
families (src/capture/readers/input_formats.cpp); this fails when either stops being made from it or drifts."""
import re
import subprocess
import sys


def help_rows(binary):
    text = subprocess.run([binary, "capture", "--help"], check=True, capture_output=True, text=True).stdout
    lines = text.split("Input formats (told by each file's content, never its name):\n", 1)
    if len(lines) != 2:
        sys.exit("capture --help has no list of input formats")
    rows = []
    for line in lines[1].splitlines():
        match = re.fullmatch(r"  ([a-z0-9_]+): (.*) \((.*)\)", line)
        if not match:
            break
        rows.append(match.groups())
    return rows


def docs_rows(path):
    text = open(path, encoding="utf-8").read()
    block = re.search(r"<!-- input formats: generated from [^>]* -->\n(.*?)<!-- end of input formats -->", text, re.S)
    if not block:
        sys.exit(f"{path}: no generated block of input formats")
    rows = []
    for line in block.group(1).splitlines():
        match = re.fullmatch(r"- \*\*(.*)\*\* \(`([a-z0-9_]+)`\): (.*)\.", line)
        if not match:
            sys.exit(f"{path}: a line of the input formats is not a format's row: {line}")
        files, name, source = match.groups()
        rows.append((name, files, source))
    return rows


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    shown, documented = help_rows(sys.argv[1]), docs_rows(sys.argv[2])
    if not shown:
        sys.exit("capture --help lists no input format")
    if shown != documented:
        sys.exit(f"capture --help lists the input formats\n  {shown}\nbut docs/capture.md lists\n  {documented}")
    print(f"capture --help and docs/capture.md list the same {len(shown)} input formats")


main()
