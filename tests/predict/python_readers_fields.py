#!/usr/bin/env python3
"""The Python readers of predict.json read only what its writer writes.

Runs `k25comm predict` on the fixtures (a capture base; one alternative predicted as a range, one refused, so that
every member of the document is written at least once), collects every member name of the predict.json it wrote,
and reads each reader's source (Python's ast): every name it takes from a document (`x["name"]`, `x.get("name")`,
`"name" in x`) inside the functions that read predict.json (READER:FUNCTION,FUNCTION; the whole file without
them) must be one the writer wrote, and each reader's PREDICT_SCHEMA_VERSIONS must hold the schema_version written.
A reader that names a member the writer does not write (a renamed field) fails here, naming its file and line.
--self-check feeds the check a reader that names a missing member and expects the failure (the check can fail).
Exits 0 when every reader holds, 1 naming each name not written, 2 on bad use.
Usage: python_readers_fields.py K25COMM DATA_DIR WORK_DIR [--self-check] READER[:FUNCTIONS]...
"""
import argparse
import ast
import json
import os
import subprocess
import sys

VERSIONS_NAME = "PREDICT_SCHEMA_VERSIONS"


def written_document(k25comm, data, work):
    """predict.json as the current writer writes it, with every member present somewhere."""
    out = os.path.join(work, "written")
    done = subprocess.run([k25comm, "predict", os.path.join(data, "capture.json"),
                           "--with", os.path.join(data, "nvlink.csv"), "--label", "nv",
                           "--with", os.path.join(data, "small.csv"), "--label", "small",
                           "--no-plots", "--out", out], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"k25comm predict exited {done.returncode}: {done.stdout}{done.stderr}")
    with open(os.path.join(out, "predict.json"), encoding="utf-8") as f:
        return json.load(f)


def member_names(value, names):
    """Every member name of every object in `value`, at any depth."""
    if isinstance(value, dict):
        for key, member in value.items():
            names.add(key)
            member_names(member, names)
    elif isinstance(value, list):
        for item in value:
            member_names(item, names)
    return names


def text_constant(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def names_read(tree):
    """(name, line) of each document member the code takes: x["name"], x.get("name"), "name" in x."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and text_constant(node.slice) is not None:
            yield text_constant(node.slice), node.lineno
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
              and node.args and text_constant(node.args[0]) is not None):
            yield text_constant(node.args[0]), node.lineno
        elif (isinstance(node, ast.Compare) and text_constant(node.left) is not None
              and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops)):
            yield text_constant(node.left), node.lineno


def reader_scopes(tree, functions, path):
    """The parts of a reader's source that read predict.json: the named functions, else the whole module."""
    if not functions:
        return [tree]
    found = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    missing = [name for name in functions if name not in found]
    if missing:
        raise LookupError(f"{path}: no function {', '.join(missing)} (the readers' list in tests/predict)")
    return [found[name] for name in functions]


def schema_versions(tree):
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == VERSIONS_NAME
                                                for t in node.targets):
            return ast.literal_eval(node.value)
    return None


def check_reader(spec, written, version):
    """The failures of one reader: names it reads that the writer does not write, its schema versions."""
    path, _, functions = spec.partition(":")
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    failures, read = [], 0
    for scope in reader_scopes(tree, [name for name in functions.split(",") if name], path):
        for name, line in names_read(scope):
            read += 1
            if name not in written:
                failures.append(f"{path}:{line}: reads '{name}', which predict.json's writer does not write")
    if read == 0:
        failures.append(f"{path}: reads no member of predict.json (is the readers' list in tests/predict right?)")
    versions = schema_versions(tree)
    if versions is None or version not in versions:
        failures.append(f"{path}: {VERSIONS_NAME} = {versions}, but the writer writes schema_version {version}")
    return failures


def self_check(written, version, work):
    """A reader that takes a member nothing writes must fail the check."""
    path = os.path.join(work, "renamed_reader.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"{VERSIONS_NAME} = ({version},)\n\n\ndef read(doc):\n"
                "    return [level['step_us'] for level in doc['base']['levels']] + [doc['base']['stepp_us']]\n")
    failures = check_reader(path, written, version)
    expected = f"{path}:5: reads 'stepp_us', which predict.json's writer does not write"
    if failures != [expected]:
        return [f"self-check: a reader of a renamed member gave {failures}, not [{expected!r}]"]
    return []


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("k25comm")
    parser.add_argument("data")
    parser.add_argument("work")
    parser.add_argument("--self-check", action="store_true", help="also show that the check fails a bad reader")
    parser.add_argument("readers", nargs="+", metavar="READER[:FUNCTIONS]")
    args = parser.parse_args(argv)
    os.makedirs(args.work, exist_ok=True)
    try:
        document = written_document(args.k25comm, args.data, args.work)
        written = member_names(document, set())
        version = document["schema_version"]
        failures = self_check(written, version, args.work) if args.self_check else []
        for spec in args.readers:
            failures += check_reader(spec, written, version)
    except (OSError, RuntimeError, LookupError, SyntaxError, ValueError) as e:
        print(f"python_readers_fields: {e}")
        return 2
    for failure in failures:
        print(failure)
    if failures:
        return 1
    print(f"python_readers_fields: {len(args.readers)} reader(s) read only members the writer writes "
          f"(schema_version {version}, {len(written)} member names)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
