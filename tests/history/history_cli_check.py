#!/usr/bin/env python3
"""`k25comm history` on the fixture nights (tests/history/make_nights.cpp): the planted 25 % step on pcie-node from
night 9 is suspicious on night 9 and a regression from night 10, nvlink-node's single bad night (5) is suspicious and
never a regression, the one change point per stepped figure is night 9 and names the NCCL version that changed there
(history.json, as the page writes it); rebuild gives the same rows; a report added twice adds nothing; a corrupt
report, a foreign file, a report of another schema_version and a foreign store are refused naming the file, the
store's bytes untouched; rebuild with a corrupt report leaves the old store as it was.
usage: history_cli_check.py K25COMM NIGHTS_DIR ANALYSIS_DATA_DIR WORK_DIR
"""
import hashlib
import json
import pathlib
import shutil
import sqlite3
import subprocess
import sys

k25comm, nights, data, work = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3]), pathlib.Path(sys.argv[4])
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)


def k25(*args):
    done = subprocess.run([k25comm, *map(str, args)], capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout + done.stderr


def rows(db):
    """Every row of the store but the run ids, by (node, start)."""
    with sqlite3.connect(db) as con:
        run_columns = [r[1] for r in con.execute("PRAGMA table_info(run)") if r[1] != "id"]
        runs = con.execute(f"SELECT {', '.join(run_columns)} FROM run ORDER BY node, started_at").fetchall()
        env = con.execute("SELECT r.node, r.started_at, e.name, e.value FROM run_env e JOIN run r ON r.id = e.run_id "
                          "ORDER BY 1, 2, 3").fetchall()
        figure_columns = [r[1] for r in con.execute("PRAGMA table_info(figure)") if r[1] != "run_id"]
        figures = con.execute(f"SELECT r.node, r.started_at, {', '.join('f.' + c for c in figure_columns)} FROM figure f "
                              "JOIN run r ON r.id = f.run_id ORDER BY 1, 2, 3, 4, 5, 6, 7, 8").fetchall()
        meta = con.execute("SELECT key, value FROM history_meta ORDER BY key").fetchall()
    return runs, env, figures, meta


def digest(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


shutil.rmtree(work, ignore_errors=True)
work.mkdir(parents=True)
db = work / "history.sqlite"
by_night = sorted(nights.glob("*/*/report.json"), key=lambda p: (p.parent.name, p.parent.parent.name))
check(len(by_night) == 24, f"{len(by_night)} fixture nights, 24 expected")

# Night by night, as tools/nightly adds them.
for report in by_night:
    rc, out = k25("history", "add", report, "--db", db)
    check(rc == 0 and "added 1 night(s)" in out, f"adding {report}: exit {rc}\n{out}")
    if report.parent.name == "2025-06-10" and report.parent.parent.name == "pcie-node":
        check("REGRESSION allreduce T=1 eager mpi burst" in out and "2 nights in a row" in out,
              f"night 10 of pcie-node did not print its regression:\n{out}")
    if report.parent.name == "2025-06-09" and report.parent.parent.name == "pcie-node":
        check("suspicious allreduce T=1 eager mpi burst" in out and "REGRESSION" not in out,
              f"night 9 of pcie-node is not suspicious alone:\n{out}")
        check("change point at 2025-06-09T02:00:00Z in allreduce T=1 eager mpi burst" in out and
              "nccl 2.28.9 -> 2.29.7" in out, f"night 9 of pcie-node did not print its change point:\n{out}")

runs, env, figures, meta = rows(db)
check(len(runs) == 24 and len(figures) == 24 * 27, f"{len(runs)} runs and {len(figures)} figure rows stored")
check(meta == [("schema_version", "1")], f"history_meta: {meta}")

# The verdicts and change points, as history.json (the page) has them.
rc, out = k25("history", "page", db, "--out", work / "page")
check(rc == 0, f"history page: exit {rc}\n{out}")
doc = json.loads((work / "page" / "history.json").read_text())
verdicts = sorted((v["node"], v["figure"], v["night"][:10], v["verdict"]) for v in doc["verdicts"])
expected = []
for tokens in (1, 4, 16):
    figure = f"allreduce T={tokens} eager mpi burst"
    expected.append(("pcie-node", figure, "2025-06-09", "suspicious"))
    expected += [("pcie-node", figure, f"2025-06-{night}", "regression") for night in (10, 11, 12)]
for phase in ("allreduce", "dispatch", "combine"):
    for tokens in (1, 4, 16):
        expected.append(("nvlink-node", f"{phase} T={tokens} eager mpi burst", "2025-06-05", "suspicious"))
check(verdicts == sorted(expected), f"verdicts:\n{json.dumps(verdicts, indent=1)}")
points = sorted((c["node"], c["figure"], c["night"], c["previous_night"], json.dumps(c["changed"])) for c in doc["change_points"])
check(points == sorted(("pcie-node", f"allreduce T={t} eager mpi burst", "2025-06-09T02:00:00Z", "2025-06-08T02:00:00Z",
                        json.dumps([{"after": "2.29.7", "before": "2.28.9", "field": "nccl"}])) for t in (1, 4, 16)),
      f"change points:\n{json.dumps(points, indent=1)}")
check([(u["node"], u["night"]) for u in doc["upgrades"]] == [("pcie-node", "2025-06-09T02:00:00Z")],
      f"upgrades: {doc['upgrades']}")

# Rebuild: the same rows.
rc, out = k25("history", "rebuild", nights, "--db", work / "rebuilt.sqlite")
check(rc == 0 and "rebuilt" in out, f"rebuild: exit {rc}\n{out}")
check(rows(work / "rebuilt.sqlite") == (runs, env, figures, meta), "the rebuilt store's rows differ from the added ones")

# A report added twice adds nothing.
before = digest(db)
rc, out = k25("history", "add", by_night[3], "--db", db)
check(rc == 0 and "added 0 night(s)" in out and "1 already there" in out, f"added twice: exit {rc}\n{out}")
check(digest(db) == before and rows(db) == (runs, env, figures, meta), "adding a report twice changed the store")

# Refusals name the file and leave the store's bytes as they were, whatever else was given with it.
corrupt = work / "corrupt.json"
corrupt.write_text(by_night[0].read_text()[:300])
not_json = work / "notes.txt"
not_json.write_text("nightly notes, not a report\n")
capture = pathlib.Path(__file__).resolve().parents[1] / "predict" / "data" / "capture.json"
for bad, words in ((corrupt, "corrupt.json line 1: not a JSON object"),
                   (not_json, "notes.txt line 1: not a JSON object"),
                   (capture, "capture.json: no run.started_at: not a report of a k25comm run"),
                   (data / "future-schema-report.json", "future-schema-report.json: schema_version 99 is not supported")):
    rc, out = k25("history", "add", by_night[0], bad, by_night[1], "--db", db)
    check(rc == 2 and words in out, f"adding {bad.name}: exit {rc}, expected 2 and '{words}':\n{out}")
    check(digest(db) == before, f"refusing {bad.name} changed the store")

text_store = work / "notes.sqlite"
text_store.write_text("not a database\n")
rc, out = k25("history", "add", by_night[0], "--db", text_store)
check(rc == 2 and "notes.sqlite: not a history store" in out, f"a text file as the store: exit {rc}\n{out}")
check(text_store.read_text() == "not a database\n", "the refused text store was changed")
other = work / "other.sqlite"
with sqlite3.connect(other) as con:
    con.execute("CREATE TABLE notes(text TEXT)")
other_bytes = digest(other)
rc, out = k25("history", "add", by_night[0], "--db", other)
check(rc == 2 and "other.sqlite: an SQLite database, but not a k25comm history store" in out,
      f"a foreign database: exit {rc}\n{out}")
check(digest(other) == other_bytes, "the refused foreign database was changed")

# A rebuild that meets a corrupt report refuses it and leaves the store it would replace as it was.
broken_tree = work / "broken-tree"
shutil.copytree(nights / "pcie-node", broken_tree / "pcie-node")
(broken_tree / "pcie-node" / "2025-06-03" / "report.json").write_text("{\"schema_version\": 3, \"run\": ")
rebuilt_before = digest(work / "rebuilt.sqlite")
rc, out = k25("history", "rebuild", broken_tree, "--db", work / "rebuilt.sqlite")
check(rc == 2 and "2025-06-03/report.json" in out, f"rebuild over a corrupt report: exit {rc}\n{out}")
check(digest(work / "rebuilt.sqlite") == rebuilt_before, "a refused rebuild changed the store")
check(not list(work.glob("rebuilt.sqlite.rebuild-*")), "a refused rebuild left its temporary store")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("PASS")
