#!/usr/bin/env python3
"""tools/plot-report with two reports: x ticks at the measured token counts and concurrencies, TPOT and
throughput axes from zero, the attribution's TP (AllReduce) and EP (dispatch + combine) bars with shares above
TPOT marked, levels without completions left out, and the interpreter choice (a python3 without matplotlib
hands over to the one k25comm uses). Run it with a python3 that has matplotlib.
"""
import argparse
import copy
import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import unittest

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Further arguments go to unittest (e.g. -k NAME).")
parser.add_argument("script", metavar="PLOT_SCRIPT", help="tools/plot-report")
parser.add_argument("data", metavar="DATA_DIR", help="tests/analysis/data")
parser.add_argument("work", metavar="WORK_DIR", help="scratch folder")
args, sys.argv[1:] = parser.parse_known_args()
SCRIPT, DATA, WORK = args.script, args.data, args.work


def load_script():
    loader = importlib.machinery.SourceFileLoader("plot_report", SCRIPT)
    spec = importlib.util.spec_from_loader("plot_report", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def load(name):
    with open(os.path.join(DATA, name)) as f:
        return json.load(f)


class PlotTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.plot = load_script()
        cls.plt = cls.plot.import_pyplot([])
        assert cls.plt is not None, "this test needs a python3 with matplotlib"
        pcie, nvlink = load("pcie-report.json"), load("nvlink-report.json")
        cls.reports = [(cls.plot.label_of(pcie), pcie), (cls.plot.label_of(nvlink), nvlink)]

    def tearDown(self):
        self.plt.close("all")

    def ticks(self, axes):
        return [float(t) for t in axes.get_xticks()], [t.get_text() for t in axes.get_xticklabels()]

    def test_token_axes_tick_at_every_measured_count(self):
        figure = self.plot.burst_figure(self.plt, self.reports)
        figure.canvas.draw()
        values, labels = self.ticks(figure.axes[0])
        self.assertEqual(values, [1, 4, 16, 64])
        self.assertEqual(labels, ["1", "4", "16", "64"])
        figure = self.plot.alltoall_figure(self.plt, self.reports)
        figure.canvas.draw()
        self.assertEqual(self.ticks(figure.axes[0]), ([1, 4, 16], ["1", "4", "16"]))

    def test_serve_axes_start_at_zero_and_tick_at_each_concurrency(self):
        figure = self.plot.serve_figure(self.plt, self.reports)
        figure.canvas.draw()
        for axes in figure.axes:
            self.assertEqual(axes.get_ylim()[0], 0.0, axes.get_title())
            self.assertEqual(self.ticks(axes), ([1, 2, 8, 32, 128], ["1", "2", "8", "32", "128"]))

    def test_serve_curves_stay_off_the_top_frame_and_the_p90_band_inside(self):
        # Issue 31 item 7: a flat TPOT (12.000 to 12.004 ms) sat on the top frame; the p90 band was clipped.
        flat = copy.deepcopy(self.reports[0][1])
        for i, level in enumerate(flat["serve"]["levels"]):
            level["tpot_ms"].update({"p50": 12.0 + i * 0.001, "p90": 12.0 + i * 0.001 + (3.0 if i == 2 else 0.0)})
            level["output_tokens_per_s"] = 80.0
        figure = self.plot.serve_figure(self.plt, [("flat", flat)])
        figure.canvas.draw()
        tpot_axes, rate_axes = figure.axes
        bottom, top = tpot_axes.get_ylim()
        self.assertEqual(bottom, 0.0)
        self.assertAlmostEqual(top, 15.002 * 1.18, places=9)  # the highest p90, a sixth more
        bottom, top = rate_axes.get_ylim()
        self.assertEqual(bottom, 0.0)
        self.assertAlmostEqual(top, 80.0 * 1.18, places=9)

    def test_levels_without_completions_are_left_out(self):
        pcie = copy.deepcopy(self.reports[0][1])
        level = pcie["serve"]["levels"][0]
        level.update({"completed": 0, "failed": level["requests"], "tpot_ms": None, "ttft_ms": None})
        self.assertEqual([l["concurrency"] for l in self.plot.serve_levels(pcie)], [2, 8, 32, 128])

    def test_attribution_shows_allreduce_dispatch_and_combine(self):
        figure = self.plot.attribution_figure(self.plt, self.reports)
        axes = figure.axes[0]
        labels = axes.get_legend_handles_labels()[1]
        for phase in ("allreduce", "dispatch", "combine", "rest of TPOT"):
            self.assertTrue(any(label.endswith(phase) for label in labels), (phase, labels))
        self.assertIn("TP AllReduce burst, EP dispatch + combine", axes.get_title())
        texts = [t.get_text() for t in axes.texts]
        self.assertTrue(any(t.startswith("TP graph") for t in texts), texts)
        self.assertTrue(any(t.startswith("EP eager") for t in texts), texts)
        # The PCIe fixture's EP bar at C=128 is 146 % of TPOT: marked, and the axis leaves room above it.
        self.assertTrue(any("> TPOT!" in t for t in texts), texts)

    def test_attribution_title_is_inside_the_picture(self):
        # Issue 21: the title ran past the figure's left edge ("unication of one decode step...") where the
        # figure is narrowest: one concurrency.
        one_level = copy.deepcopy(self.reports[0][1])
        one_level["attribution"] = one_level["attribution"][:1]
        for reports in ([(self.reports[0][0], one_level)], self.reports):
            figure = self.plot.attribution_figure(self.plt, reports)
            figure.tight_layout()
            figure.canvas.draw()
            renderer = figure.canvas.get_renderer()
            title = figure.axes[0].title.get_window_extent(renderer)
            width = figure.bbox.width
            self.assertGreaterEqual(title.x0, 0, (title, width))
            self.assertLessEqual(title.x1, width, (title, width))

    def test_serve_curve_is_labelled_by_the_serving_side(self):
        # A merged report: the replay's label (topology, ranks, transport) means nothing for HTTP latencies.
        merged = copy.deepcopy(self.reports[0][1])
        merged["serve"]["model"] = "gpt-5.2"
        merged["serve"]["endpoint"] = "http://127.0.0.1:6556/v1"
        merged["serve"]["levels"][0]["tpot_per"] = "chunk"
        figure = self.plot.serve_figure(self.plt, [(self.plot.label_of(merged), merged)])
        for axes in figure.axes:  # TPOT per chunk and chunks per second (issue 31 item 1)
            self.assertEqual(axes.get_legend_handles_labels()[1], ["gpt-5.2 at 127.0.0.1:6556 [counted in chunks]"])
        labels = figure.axes[0].get_legend_handles_labels()[1]
        self.assertNotIn("ranks", labels[0])

    def test_live_step_stacks_the_classes_of_each_profiled_level_under_its_wall(self):
        report = copy.deepcopy(self.reports[0][1])
        self.assertIsNone(self.plot.live_step_figure(self.plt, [("r", report)]))  # no --profile: no figure
        def level(c, wall_us, classes, status="read"):
            return {"concurrency": c, "status": status, "wall_us": wall_us, "comm_share": 0.5,
                    "level_tpot_ms": 12.0, "classes": [{"class": k, "merged_us": v} for k, v in classes]}
        report["live_profile"] = {"levels": [
            level(128, 10000.0, [("communication", 5000.0), ("gemm", 3000.0)]),
            level(1, 4000.0, [("communication", 2000.0), ("attention", 1000.0)]),
            level(8, 0.0, [], status="unread")]}
        figure = self.plot.live_step_figure(self.plt, [("r", report)])
        axes = figure.axes[0]
        self.assertEqual(self.ticks(axes)[1], ["1", "128"])  # by concurrency, the unread level left out
        labels = axes.get_legend_handles_labels()[1]
        self.assertEqual(labels, ["TPOT p50 of the level", "communication", "attention", "gemm",
                                  "rest of the step's wall"])
        tops = {}
        for patch in axes.patches:
            x = round(patch.get_x() + patch.get_width() / 2)
            tops[x] = max(tops.get(x, 0.0), round(patch.get_y() + patch.get_height(), 6))
        self.assertEqual(tops, {0: 4.0, 1: 10.0})  # each bar ends at its step's wall (ms)

    def test_live_step_names_the_step_it_read_never_a_prefill_a_decode_step(self):
        # Issue 51: an 84 ms prefill (the window's traces held no decode step) was titled "Live decode step".
        report = copy.deepcopy(self.reports[0][1])
        def level(c, step, wall_us):
            return {"concurrency": c, "status": "read", "step": step, "wall_us": wall_us, "comm_share": 0.2,
                    "level_tpot_ms": 12.0, "classes": [{"class": "communication", "merged_us": wall_us / 5}]}
        report["live_profile"] = {"levels": [level(1, "prefill of 2048 tokens (batch 1)", 84000.0)]}
        axes = self.plot.live_step_figure(self.plt, [("r", report)]).axes[0]
        self.assertNotIn("decode", axes.get_title() + axes.get_ylabel())
        self.assertIn("C=1: prefill of 2048 tokens (batch 1)", axes.get_title())
        report["live_profile"] = {"levels": [level(1, "decode step at batch 1", 9000.0),
                                             level(8, "decode step at batch 8", 12000.0)]}
        axes = self.plot.live_step_figure(self.plt, [("r", report)]).axes[0]
        self.assertIn("Live decode step", axes.get_title())

    def test_backends_are_one_curve_each_and_a_wrong_one_is_marked(self):
        pcie = load("pcie-report.json")
        self.assertIsNone(self.plot.backends_figure(self.plt, [("pcie", pcie)]))  # one backend: no figure
        with_backends = copy.deepcopy(pcie)
        rows = []
        for r in pcie["results"]:
            if r["phase"] != "allreduce":
                continue
            for backend, scale, wrong in (("oneshot", 0.3, 0), ("twoshot", 0.6, 7)):
                row = dict(copy.deepcopy(r), backend=backend, wrong=wrong)
                row["op_us"] = {k: v * scale for k, v in r["op_us"].items()}
                rows.append(row)
        rows.append(dict(copy.deepcopy(rows[0]), backend="oneshot-pull", not_run="P2P is not possible", iterations=0))
        with_backends["backend_results"] = rows
        figure = self.plot.backends_figure(self.plt, [("pcie", with_backends)])
        labels = [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
        self.assertEqual(labels, ["nccl (eager)", "oneshot (eager)", "twoshot (eager) WRONG"])
        self.assertEqual(figure.axes[0].get_xscale(), "log")

    def test_names_come_before_the_labels(self):
        out = os.path.join(WORK, "named")
        shutil.rmtree(out, ignore_errors=True)
        pcie = os.path.join(DATA, "pcie-report.json")
        done = subprocess.run([sys.executable, SCRIPT, pcie, pcie, "--out", out, "--name", "baseline", "--name",
                               "this run"], capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertEqual(self.plot.named(["a", "a"], ["baseline", "this run"], ["x/r.json", "y/r.json"]),
                         ["baseline (a)", "this run (a)"])
        self.assertEqual(self.plot.named(["a", "a"], [], ["x/r.json", "y/r.json"]), ["a (x)", "a (y)"])
        done = subprocess.run([sys.executable, SCRIPT, pcie, pcie, "--out", out, "--name", "baseline"],
                              capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 2, done.stdout + done.stderr)
        self.assertIn("give one per report", done.stderr)

    def test_two_reports_write_four_plots_with_a_python_without_matplotlib_first(self):
        out = os.path.join(WORK, "two")
        shutil.rmtree(out, ignore_errors=True)
        venv = os.path.join(WORK, "venv-without-matplotlib")
        if not os.path.exists(os.path.join(venv, "bin", "python3")):
            made = subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], capture_output=True,
                                  timeout=120)
            if made.returncode != 0:
                self.skipTest("python3 -m venv is not available here")
        python = os.path.join(venv, "bin", "python3")
        self.assertNotEqual(subprocess.run([python, "-c", "import matplotlib"], capture_output=True,
                                           timeout=60).returncode, 0)
        env = dict(os.environ, K25_PYTHON=sys.executable)
        env.pop("K25_PLOT_REEXEC", None)
        done = subprocess.run([python, SCRIPT, os.path.join(DATA, "pcie-report.json"),
                               os.path.join(DATA, "nvlink-report.json"), "--out", out],
                              capture_output=True, text=True, env=env, timeout=120)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        for name in ("burst_vs_tokens.png", "alltoall_vs_tokens.png", "serve_vs_concurrency.png", "attribution.png"):
            with open(os.path.join(out, name), "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n", name)

        # With no interpreter to hand over to, it says which one it needs (exit 3).
        env["K25_PYTHON"] = python
        done = subprocess.run([python, SCRIPT, os.path.join(DATA, "pcie-report.json"), "--out", out],
                              capture_output=True, text=True, env=env, timeout=120)
        self.assertEqual(done.returncode, 3, done.stdout + done.stderr)
        self.assertIn("needs a python3 with matplotlib", done.stdout)
        self.assertIn("K25_PYTHON", done.stdout)


if __name__ == "__main__":
    os.makedirs(WORK, exist_ok=True)
    unittest.main(verbosity=2)
