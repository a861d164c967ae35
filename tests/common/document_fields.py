#!/usr/bin/env python3
"""Checks that a Python reader of k25comm's documents (tools/plot-report, tools/plot-capture) names only fields
the current writer writes.

Every field name the script spells (a string subscript `x["name"]`, `x.get("name", ...)`, `"name" in x`; not
os.environ's) must be
a member of some object in the given JSON documents (written by the current k25comm, not hand-made) or a column
of the given CSV files; names of the script's own dictionaries are given with --own. A field renamed in the
writer, or one the script reads that nothing writes, fails here with the script's line. Exit 0 when every name
is written, 1 with one line per name that is not, 2 on bad usage.

    document_fields.py tools/plot-capture --json OUT/capture.json --csv OUT/capture-ops.csv
"""
import argparse
import ast
import csv
import json
import sys


def named_fields(script):
    """{name: [line, ...]} of the field names the script spells."""
    tree = ast.parse(open(script, encoding="utf-8").read(), filename=script)
    names = {}

    def add(node, line):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.setdefault(node.value, []).append(line)

    def environment(node):  # os.environ: variables, not fields
        return isinstance(node, ast.Attribute) and node.attr == "environ"

    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and not environment(node.value):
            add(node.slice, node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            if node.args and not environment(node.func.value):
                add(node.args[0], node.lineno)
        elif isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
            add(node.left, node.lineno)
    return names


def written_fields(json_files, csv_files):
    """Every member name of every object in the documents, and every CSV column."""
    found = set()

    def walk(value):
        if isinstance(value, dict):
            for key, item in value.items():
                found.add(key)
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for path in json_files:
        with open(path, encoding="utf-8") as f:
            walk(json.load(f))
    for path in csv_files:
        with open(path, encoding="utf-8", newline="") as f:
            found.update(next(csv.reader(f), []))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("script", help="the Python reader whose field names are checked")
    parser.add_argument("--json", nargs="+", default=[], metavar="FILE", help="documents the current writer wrote")
    parser.add_argument("--csv", nargs="*", default=[], metavar="FILE", help="CSV files it wrote")
    parser.add_argument("--own", nargs="*", default=[], metavar="NAME",
                        help="keys of the script's own dictionaries, not of a document")
    args = parser.parse_args()
    if not args.json:
        parser.error("give at least one --json document")
    try:
        names = named_fields(args.script)
        written = written_fields(args.json, args.csv) | set(args.own)
    except (OSError, SyntaxError, ValueError) as e:
        print(f"document_fields: {e}", file=sys.stderr)
        return 2
    missing = sorted((lines[0], name) for name, lines in names.items() if name not in written)
    for line, name in missing:
        print(f"{args.script}:{line}: reads '{name}', which no document or CSV given holds "
              f"({', '.join(args.json + args.csv)})")
    if missing:
        return 1
    print(f"ok: the {len(names)} field names {args.script} reads are all written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
