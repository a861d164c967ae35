#!/usr/bin/env python3
"""The history page in a real browser: headless Chromium (over the DevTools protocol, tools/lib/headless_chromium.py)
opens index.html from a file and the test reads what it drew from the DOM and Chart.js's charts on it: no console
error, every chart holds one point per night of each node, the regression, suspicious and change-point marks sit on
their nights (the same pixel as the night's point), the change point's annotation names the NCCL upgrade, every link
opens a file and a click on a regression point opens that night's report.md. Keeps a screenshot (page.png) as the
test's artifact. A page without Chart.js must show a console error (the check sees errors where there are).
Exit 77 (skipped) where Chromium is not installed.
usage: page_browser_check.py K25COMM NIGHTS_DIR WORK_DIR
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import urllib.parse
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools" / "lib"))
import headless_chromium  # noqa: E402

k25comm, nights, work = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)


chromium = headless_chromium.chromium_path()
if chromium is None:
    print("SKIP: no chromium installed (Debian's chromium; tools/setup --tests installs it)")
    sys.exit(77)

shutil.rmtree(work, ignore_errors=True)
work.mkdir(parents=True)
db, page_dir = work / "history.sqlite", work / "page"
reports = sorted(str(p) for p in nights.glob("*/*/report.json"))
subprocess.run([k25comm, "history", "add", *reports, "--db", str(db)], check=True, stdout=subprocess.DEVNULL)
subprocess.run([k25comm, "history", "page", str(db), "--out", str(page_dir)], check=True)
doc = json.loads((page_dir / "history.json").read_text())
index_url = (page_dir / "index.html").resolve().as_uri()

DRAWN = """new Promise((resolve) => {
  const end = performance.now() + 30000;
  const poll = () => (document.documentElement.dataset.charts || performance.now() > end)
      ? resolve(document.documentElement.dataset.charts || null) : setTimeout(poll, 50);
  poll();
})"""
CHARTS = """(() => Array.from(document.querySelectorAll('figure.history-chart')).map((box) => {
  const canvas = box.querySelector('canvas');
  const chart = Chart.getChart(canvas);
  const rect = canvas.getBoundingClientRect();
  return {
    figure: box.dataset.figure,
    canvas: {left: rect.left + window.scrollX, top: rect.top + window.scrollY},
    lines: JSON.parse(box.dataset.annotations),
    datasets: chart.data.datasets.map((ds, i) => ({
      node: ds.k25.node, role: ds.k25.role,
      points: chart.getDatasetMeta(i).data.map((el, j) => ({x: el.x, y: el.y, night: ds.data[j].night || null,
                                                            report: ds.data[j].report || null})),
    })),
  };
}))()"""

with headless_chromium.Browser(chromium, width=1400, height=1000) as browser:
    page = browser.new_page()
    page.navigate(index_url)
    check(page.errors == [], f"console errors on loading the page: {page.errors}")
    # The first screen is drawn at load, the others when near the window or when the browser is idle: wait for all.
    check(page.evaluate(DRAWN) == str(len(doc["figures"])), "the page did not draw every chart within 30 s")
    charts = page.evaluate(CHARTS)
    check(len(charts) == len(doc["figures"]) == 9, f"{len(charts)} charts for {len(doc['figures'])} figures, 9 expected")
    expected = {(f["name"], s["node"]): [p["night"] for p in s["points"]] for f in doc["figures"] for s in f["series"]}
    for chart in charts:
        by_role = {}
        for ds in chart["datasets"]:
            by_role[(ds["node"], ds["role"])] = ds["points"]
        for node in ("nvlink-node", "pcie-node"):
            values = by_role.get((node, "value"), [])
            check([p["night"] for p in values] == expected[(chart["figure"], node)] and len(values) == 12,
                  f"{chart['figure']} {node}: {len(values)} points drawn, 12 nights expected")
            check(len(by_role.get((node, "band"), [])) == 12, f"{chart['figure']} {node}: no spread band of 12 nights")
            at_night = {p["night"]: p for p in values}
            for role in ("regression", "suspicious", "change"):
                for mark in by_role.get((node, role), []):
                    point = at_night.get(mark["night"])
                    check(point is not None and abs(point["x"] - mark["x"]) < 0.5 and abs(point["y"] - mark["y"]) < 0.5,
                          f"{chart['figure']} {node}: the {role} mark of {mark['night']} is not on its night's point")
        marks = {role: {node: [p["night"][:10] for p in by_role.get((node, role), [])] for node in ("nvlink-node", "pcie-node")}
                 for role in ("regression", "suspicious", "change")}
        stepped = chart["figure"].startswith("allreduce")
        check(marks["suspicious"]["nvlink-node"] == ["2025-06-05"] and marks["regression"]["nvlink-node"] == [],
              f"{chart['figure']}: nvlink-node's one bad night is not suspicious alone: {marks}")
        check(marks["regression"]["pcie-node"] == (["2025-06-10", "2025-06-11", "2025-06-12"] if stepped else []),
              f"{chart['figure']}: pcie-node regressions {marks['regression']['pcie-node']}")
        check(marks["suspicious"]["pcie-node"] == (["2025-06-09"] if stepped else []),
              f"{chart['figure']}: pcie-node suspicious {marks['suspicious']['pcie-node']}")
        check(marks["change"]["pcie-node"] == (["2025-06-09"] if stepped else []) and marks["change"]["nvlink-node"] == [],
              f"{chart['figure']}: change points {marks['change']}")
        # The NCCL upgrade annotated once, on night 9 (a change point's line where there is one, else the upgrade's).
        upgrade = [line for line in chart["lines"] if "nccl 2.28.9 \u2192 2.29.7" in line["label"]]
        check(len(upgrade) == 1 and upgrade[0]["x"] == page.evaluate("Date.parse('2025-06-09T02:00:00Z')"),
              f"{chart['figure']}: the NCCL upgrade is not annotated once on 2025-06-09: {chart['lines']}")

    # Every link opens a file; the marks' links open their nights' reports.
    links = page.evaluate("Array.from(document.querySelectorAll('a[href]')).map((a) => "
                          "({href: a.href, night: (a.closest('[data-night]') || {dataset: {}}).dataset.night || null,"
                          " node: (a.closest('[data-node]') || {dataset: {}}).dataset.node || null}))")
    check(len(links) > 30, f"only {len(links)} links on the page")
    for link in links:
        url = urllib.parse.urlparse(link["href"])
        if url.fragment and url.path == urllib.parse.urlparse(index_url).path:
            check(page.evaluate(f"document.getElementById({json.dumps(url.fragment)}) !== null"),
                  f"{link['href']}: no such chart on the page")
            continue
        path = pathlib.Path(urllib.request.url2pathname(url.path))
        check(path.is_file(), f"{link['href']}: no such file")
        if link["night"] and link["node"]:
            check(path.name == "report.md" and path.parent.name == link["night"][:10] and path.parent.parent.name == link["node"],
                  f"{link['href']}: not {link['node']}'s report of {link['night']}")
    page.screenshot(str(work / "page.png"))
    check((work / "page.png").stat().st_size > 10000, "the screenshot is empty")

    # A click on pcie-node's first regression point of the first chart opens that night's report.
    first = charts[0]
    mark = next(ds for ds in first["datasets"] if ds["node"] == "pcie-node" and ds["role"] == "regression")["points"][0]
    page.evaluate(f"window.scrollTo(0, {first['canvas']['top'] - 100})")
    scroll_y = page.evaluate("window.scrollY")
    since = len(browser.events)
    page.click(first["canvas"]["left"] + mark["x"], first["canvas"]["top"] - scroll_y + mark["y"])
    navigated = browser.wait_event("Page.frameNavigated", page.session, 20, since)["frame"]["url"]
    check(navigated.endswith("/pcie-node/2025-06-10/report.md"), f"the click opened {navigated}")
    page.browser.wait_event("Page.loadEventFired", page.session, 20, since)
    text = page.evaluate("document.body.innerText")
    check("2025-06-10T02:00:00Z" in text and "pcie-node" in text, "the opened report is not pcie-node's of 2025-06-10")

    # Without Chart.js the page says so, and the check sees it.
    broken = work / "broken"
    shutil.copytree(page_dir, broken)
    os.remove(broken / "chart.min.js")
    other = browser.new_page()
    other.navigate((broken / "index.html").resolve().as_uri())
    errors = other.errors
    check(any("chart.min.js" in e for e in errors) and any("did not load" in e for e in errors),
          f"a page without chart.min.js showed no console error: {errors}")

if failures:
    print(f"{len(failures)} failure(s); screenshot: {work / 'page.png'}")
    sys.exit(1)
print(f"PASS: {len(charts)} charts in Chromium; screenshot {work / 'page.png'}")
