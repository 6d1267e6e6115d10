#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tools/gpuvp_plot.py on a small hand-written sweep: the files it writes and the pareto points;
every option of `gpuvp plot` reaching its effect (through the program, $GPUVP_BINARY, when set),
read back from the JSON each plot is described in; damaged inputs named with file:line, exit 2.
Exits 77 (ctest: skipped) when matplotlib is not installed."""
import contextlib
import importlib.util
import io
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


def described(d, name):
    with open(os.path.join(d, "plots", name + ".json")) as f:
        return json.load(f)


GPUVP = os.environ.get("GPUVP_BINARY")


def gpuvp_plot(*args):
    """`gpuvp plot ARGS` through the program (its option parser), else the script alone."""
    if GPUVP:
        return subprocess.run([GPUVP, "plot", *args], capture_output=True, text=True)
    return run(*args)


class EveryOptionReachesItsEffect(unittest.TestCase):
    """Each option changes what is drawn: the axis labels, the kind, the series and their count."""

    def test_default_x_is_the_first_parameter_hue_the_second(self):
        d = sweep_dir(self)
        r = gpuvp_plot(d)
        self.assertEqual(r.returncode, 0, r.stderr)
        j = described(d, "time-vs-width")
        self.assertEqual((j["kind"], j["xlabel"], j["ylabel"]), ("line", "width", "time"))
        # hue quantum: 1us at widths 8, 16, 32; 10us at 8, 16 (point 5 failed)
        self.assertEqual([(s["label"], len(s["points"])) for s in j["series"]],
                         [("quantum=1us", 3), ("quantum=10us", 2)])
        self.assertTrue(os.path.exists(os.path.join(d, "plots", "energy-vs-width.json")))

    def test_x_and_y(self):
        d = sweep_dir(self)
        r = gpuvp_plot(d, "--x", "quantum", "--y", "energy")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(os.listdir(os.path.join(d, "plots"))),
                         ["energy-vs-quantum.json", "energy-vs-quantum.png", "energy-vs-quantum.svg"])
        j = described(d, "energy-vs-quantum")
        self.assertEqual((j["xlabel"], j["ylabel"], j["title"]), ("quantum", "energy", "energy vs quantum"))
        # hue = width (the first parameter that is not x): 3 lines; width 8 is (1us, 9), (10us, 8)
        self.assertEqual([s["label"] for s in j["series"]], ["width=8", "width=16", "width=32"])
        for got, want in zip(j["series"][0]["points"], [[1e-6, 9.0], [1e-5, 8.0]], strict=True):
            self.assertAlmostEqual(got[0], want[0], delta=1e-12)
            self.assertEqual(got[1], want[1])

    def test_hue_and_kind_bar(self):
        d = sweep_dir(self)
        r = gpuvp_plot(d, "--x", "width", "--y", "time", "--hue", "quantum", "--kind", "bar")
        self.assertEqual(r.returncode, 0, r.stderr)
        j = described(d, "time-vs-width")
        self.assertEqual(j["kind"], "bar")
        self.assertEqual([(s["type"], s["label"]) for s in j["series"]], [("bar", "quantum=1us"), ("bar", "quantum=10us")])
        self.assertEqual(j["series"][0]["values"], [10.0, 6.0, 12.0])
        self.assertEqual(j["series"][1]["values"], [8.0, 9.0, None])  # width 32 at 10us failed: no bar
        r = gpuvp_plot(d, "--x", "quantum", "--y", "time", "--hue", "width")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([s["label"] for s in described(d, "time-vs-quantum")["series"]],
                         ["width=8", "width=16", "width=32"])

    def test_kind_heatmap_as_in_the_docs(self):
        d = sweep_dir(self)
        r = gpuvp_plot(d, "--y", "time", "--x", "quantum", "--hue", "width", "--kind", "heatmap")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(p for p in os.listdir(os.path.join(d, "plots")) if p.endswith(".json")),
                         ["time-vs-quantum.json"])  # only the plot asked for, not the defaults
        j = described(d, "time-vs-quantum")
        self.assertEqual((j["kind"], j["xlabel"], j["ylabel"], j["colorbar"]), ("heatmap", "quantum", "width", "time"))
        self.assertEqual([(s["label"], s["values"]) for s in j["series"]],
                         [("8", [10.0, 8.0]), ("16", [6.0, 9.0]), ("32", [12.0, None])])

    def test_kind_pareto_and_maximize(self):
        d = sweep_dir(self)
        r = gpuvp_plot(d, "--kind", "pareto", "--x", "time", "--y", "energy")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("non-dominated points: 1 2 3 4", r.stdout)
        j = described(d, "energy-vs-time")
        self.assertEqual((j["kind"], j["xlabel"], j["ylabel"]), ("pareto", "time", "energy"))
        self.assertEqual(len(j["series"][1]["points"]), 5)  # the scatter: every successful point
        # Energy maximised: (8,8) is beaten by (6,10), (10,9) by (6,10); left 2 (6,10) alone.
        r = gpuvp_plot(d, "--kind", "pareto", "--x", "time", "--y", "energy", "--maximize", "energy")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("(non-dominated points: 2)", r.stdout)
        self.assertEqual(described(d, "energy-vs-time")["series"][0]["points"], [[6.0, 10.0]])

    def test_y_wall_s(self):
        d = sweep_dir(self)
        r = gpuvp_plot(d, "--y", "wall_s")
        self.assertEqual(r.returncode, 0, r.stderr)
        j = described(d, "wall_s-vs-width")
        self.assertEqual(j["ylabel"], "wall_s")
        self.assertEqual(j["series"][0]["points"], [[8.0, 1.0], [16.0, 2.0], [32.0, 3.0]])  # 1 + point/2

    def test_bad_kind_and_unknown_option_are_usage_errors(self):
        d = sweep_dir(self)
        for args in (["--kind", "pie"], ["--z", "width"], ["--kind", "pareto", "--x", "time"]):
            r = gpuvp_plot(d, *args)
            self.assertEqual(r.returncode, 2, args)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(d, "plots")))


class DamagedInputs(unittest.TestCase):
    """A damaged results.csv, timing.csv or sweep.json: file:line and the problem, exit 2."""

    def check(self, name, text, expected, mode="w"):
        d = sweep_dir(self)
        with open(os.path.join(d, name), mode) as f:
            f.write(text)
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            rc = plot.main([d])
        self.assertEqual(rc, 2, err.getvalue())
        self.assertIn(os.path.join(d, expected), err.getvalue())
        self.assertNotIn("Traceback", err.getvalue())
        self.assertFalse(os.path.exists(os.path.join(d, "plots")), "a plot was drawn")
        return err.getvalue()

    def test_results_csv(self):
        self.check("results.csv", "", "results.csv:1: no header line")
        self.check("results.csv", "point,width,quantum,time,energy\n", "results.csv:2: no data rows")
        self.check("results.csv", "width,time\n8,1\n", "results.csv:1: no 'point' column")
        self.check("results.csv", CSV.replace("point,width,", "point,with,"), "sweep.json:1: parameter 'width' is not a column")
        self.check("results.csv", CSV.replace("1,8,10us,8,8,0,", "1,8,10us"), "results.csv:3: 3 fields where the header has 7")
        self.check("results.csv", "point,time,time\n0,1,2\n", "results.csv:1: column 'time' appears twice")
        self.check("results.csv", CSV.encode().replace(b"1us", b"1\xb5s", 1), "results.csv:2: not UTF-8", "wb")

    def test_timing_csv(self):
        self.check("timing.csv", "point,host\n0,vm\n", "timing.csv:1: no 'wall_s' column")
        self.check("timing.csv", "point,wall_s,host\n0,1,vm\n1,2\n", "timing.csv:3: 2 fields where the header has 3")

    def test_sweep_json(self):
        self.check("sweep.json", '{"parameters": ["width",\n  "quantum"\n', "sweep.json:3: not valid JSON")
        self.check("sweep.json", '{\n "parameters": "width",\n "metrics": []}', "sweep.json:2: 'parameters' must be a list")
        self.check("sweep.json", '{"parameters": [],\n "metrics": [1, 2]}', "sweep.json:2: 'metrics' must be")
        self.check("sweep.json", '[]', "sweep.json:1: the top level must be an object")
        self.check("sweep.json", '{"parameters": ["width"],\n "metrics": [{"name": "power"}]}',
                   "sweep.json:2: metric 'power' is not a column of results.csv")

    def test_nothing_to_plot_is_an_error_not_a_silent_exit_0(self):
        # No metric in the manifest, or every point failed: no plot, a message, exit 2.
        self.check("sweep.json", '{"parameters": ["width"], "metrics": []}', "report.html")
        d = sweep_dir(self)
        with open(os.path.join(d, "results.csv"), "w") as f:
            f.write("point,width,quantum,time,energy,exit_code,error\n0,8,1us,,,1,x\n")
        r = run(d)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no plot drawn", r.stderr)
        self.assertNotIn("Traceback", r.stderr)



class PythonStartsOncePerInterpreterTried(unittest.TestCase):
    """gpuvp runs the script on the first Python with matplotlib without asking each one first
    (`python3 -c "import matplotlib"` started Python and matplotlib once more): with its first
    argument --exit-3-without-matplotlib, a Python that cannot import matplotlib exits 3 at once,
    printing nothing, and gpuvp tries the next one (python3 on the PATH, then /usr/bin/python3)."""

    def without_matplotlib(self):
        """A folder whose `matplotlib` fails to import, for PYTHONPATH."""
        d = tempfile.mkdtemp(prefix="gpuvp-no-matplotlib-")
        self.addCleanup(shutil.rmtree, d, True)
        os.mkdir(os.path.join(d, "matplotlib"))
        with open(os.path.join(d, "matplotlib", "__init__.py"), "w") as f:
            f.write("raise ImportError('no matplotlib here (test)')\n")
        return d

    def test_the_script_answers_3_and_prints_nothing_without_matplotlib(self):
        d = sweep_dir(self)
        env = dict(os.environ, PYTHONPATH=self.without_matplotlib())
        r = subprocess.run([sys.executable, SCRIPT, "--exit-3-without-matplotlib", d], capture_output=True, text=True, env=env)
        self.assertEqual((r.returncode, r.stdout, r.stderr), (3, "", ""))
        self.assertFalse(os.path.exists(os.path.join(d, "plots")))
        # Without the flag (a user running the script): one line, exit 1, as before.
        r = subprocess.run([sys.executable, SCRIPT, d], capture_output=True, text=True, env=env)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("no matplotlib here (test)", r.stderr)
        self.assertNotIn("Traceback", r.stderr)

    def test_gpuvp_plot_falls_back_to_usr_bin_python3_starting_each_python_once(self):
        if not GPUVP:
            self.skipTest("needs the program ($GPUVP_BINARY)")
        if subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"], capture_output=True).returncode != 0:
            self.skipTest("/usr/bin/python3 has no matplotlib (Debian: python3-matplotlib)")
        d = sweep_dir(self)
        # A python3 first on the PATH whose matplotlib fails to import; it logs each start.
        bin_dir = tempfile.mkdtemp(prefix="gpuvp-fake-python-")
        self.addCleanup(shutil.rmtree, bin_dir, True)
        log = os.path.join(bin_dir, "starts")
        with open(os.path.join(bin_dir, "python3"), "w") as f:
            f.write(f'#!/bin/sh\necho "$*" >> {log}\nPYTHONPATH={self.without_matplotlib()} exec /usr/bin/python3 "$@"\n')
        os.chmod(os.path.join(bin_dir, "python3"), 0o755)
        env = {k: v for k, v in os.environ.items() if k != "GPUVP_PYTHON"}
        env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
        r = subprocess.run([GPUVP, "plot", d, "--y", "time"], capture_output=True, text=True, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")
        self.assertTrue(os.path.exists(os.path.join(d, "plots", "time-vs-width.png")))
        with open(log) as f:
            starts = f.read().splitlines()
        self.assertEqual(len(starts), 1, starts)  # no `-c "import matplotlib"` beforehand
        self.assertTrue(starts[0].endswith("gpuvp_plot.py --exit-3-without-matplotlib --y time -- " + d), starts[0])


if __name__ == "__main__":
    if importlib.util.find_spec("matplotlib") is None:
        print("SKIP: matplotlib is not installed for", sys.executable, "(Debian: python3-matplotlib)")
        sys.exit(77)
    unittest.main()
