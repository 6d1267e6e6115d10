#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tools/gpuvp_plot.py on a small hand-written sweep: the files it writes and the pareto points.
Exits 77 (ctest: skipped) when matplotlib is not installed."""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.environ.get("GPUVP_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", "..")),
                      "tools", "gpuvp_plot.py")
spec = importlib.util.spec_from_file_location("gpuvp_plot", SCRIPT)
plot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot)

# Six points of a 3x2 sweep; point 5 failed. Costs (time, energy), both minimised:
#   0 (10, 9)  1 (8, 8)  2 (6, 10)  3 (9, 5)  4 (12, 4)  5 failed
# Dominated: 0 by 1 (8<10, 8<9). Non-dominated: 1 (nothing has both <=), 2 (least time),
# 3 (no point has time <= 9 and energy <= 5 except itself), 4 (least energy).
CSV = """point,width,quantum,time,energy,exit_code,error
0,8,1us,10,9,0,
1,8,10us,8,8,0,
2,16,1us,6,10,0,
3,16,10us,9,5,0,
4,32,1us,12,4,0,
5,32,10us,,,1,"g0: 3 transactions answered with an error"
"""


def sweep_dir(test):
    d = tempfile.mkdtemp(prefix="gpuvp-plot-test-")
    test.addCleanup(shutil.rmtree, d, True)
    with open(os.path.join(d, "results.csv"), "w") as f:
        f.write(CSV)
    with open(os.path.join(d, "timing.csv"), "w") as f:
        f.write("point,wall_s,host\n" + "".join(f"{i},{1 + i / 2},vm\n" for i in range(6)))
    with open(os.path.join(d, "sweep.json"), "w") as f:
        json.dump({"parameters": ["width", "quantum"],
                   "metrics": [{"name": "time", "path": "run.sim_time_ps"}, {"name": "energy", "path": "x.energy"}]}, f)
    return d


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


class PlotScript(unittest.TestCase):
    def test_default_plots_one_per_metric_and_a_report(self):
        d = sweep_dir(self)
        r = run(d)
        self.assertEqual(r.returncode, 0, r.stderr)
        for name in ("time-vs-width", "energy-vs-width"):
            for ext in (".png", ".svg"):
                path = os.path.join(d, "plots", name + ext)
                self.assertTrue(os.path.getsize(path) > 1000, path)
        with open(os.path.join(d, "plots", "time-vs-width.png"), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        with open(os.path.join(d, "report.html")) as f:
            report = f.read()
        self.assertIn('<img src="plots/time-vs-width.png"', report)
        self.assertIn('<img src="plots/energy-vs-width.png"', report)
        self.assertIn("answered with an error", report)  # the failed row is in the table
        self.assertIn('<tr class="failed">', report)

    def test_pareto_marks_the_non_dominated_points(self):
        d = sweep_dir(self)
        r = run(d, "--kind", "pareto", "--x", "time", "--y", "energy")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("non-dominated points: 1 2 3 4", r.stdout)
        with open(os.path.join(d, "plots", "energy-vs-time.pareto.csv")) as f:
            rows = f.read().splitlines()
        self.assertEqual(rows, ["point,time,energy", "1,8,8", "2,6,10", "3,9,5", "4,12,4"])
        self.assertTrue(os.path.exists(os.path.join(d, "plots", "energy-vs-time.svg")))

    def test_pareto_front_function(self):
        # Minimising x, maximising y: (2,3) dominates (3,2) (less x, more y); nothing has less x
        # than (1,1), nothing more y than (2,3) -> [0, 1]. Minimising both: (1,1) dominates all.
        self.assertEqual(plot.pareto_front([(1, 1), (2, 3), (3, 2)], maximize_y=True), [0, 1])
        self.assertEqual(plot.pareto_front([(1, 1), (2, 3), (3, 2)]), [0])
        self.assertEqual(plot.pareto_front([(1, 2), (1, 2)]), [0, 1])  # equal points dominate neither

    def test_heatmap_bar_and_units(self):
        d = sweep_dir(self)
        self.assertEqual(run(d, "--kind", "heatmap", "--x", "width", "--y", "time", "--hue", "quantum").returncode, 0)
        self.assertEqual(run(d, "--kind", "bar", "--x", "quantum", "--y", "time").returncode, 0)
        self.assertTrue(os.path.exists(os.path.join(d, "plots", "time-vs-quantum.png")))
        self.assertAlmostEqual(plot.numeric("10us"), 1e-5)
        self.assertEqual(plot.numeric("0x10"), 16.0)
        self.assertIsNone(plot.numeric("lrr"))

    def test_wall_time_from_timing_csv(self):
        d = sweep_dir(self)
        r = run(d, "--y", "wall_s", "--x", "width")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(os.path.join(d, "plots", "wall_s-vs-width.png")))
        with open(os.path.join(d, "report.html")) as f:
            self.assertNotIn("<th>wall_s</th>", f.read())

    def test_errors_are_usage_errors(self):
        d = sweep_dir(self)
        r = run(d, "--y", "nope")
        self.assertEqual(r.returncode, 2)
        self.assertIn("no column 'nope'", r.stderr)
        self.assertEqual(run(d, "--kind", "pareto", "--x", "time").returncode, 2)
        self.assertEqual(run(d, "--kind", "line", "--x", "quantum", "--y", "time", "--hue", "width").returncode, 0)
        self.assertEqual(run(os.path.join(d, "missing")).returncode, 2)


if __name__ == "__main__":
    if importlib.util.find_spec("matplotlib") is None:
        print("SKIP: matplotlib is not installed for", sys.executable, "(Debian: python3-matplotlib)")
        sys.exit(77)
    unittest.main()
