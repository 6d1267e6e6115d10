#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Plots of a gpuvp sweep (called by `gpuvp plot DIR` and at the end of `gpuvp sweep`).

Reads DIR/results.csv and DIR/sweep.json (which columns are parameters and which are metrics),
writes DIR/plots/<y>-vs-<x>.png and .svg, what each plot shows in DIR/plots/<y>-vs-<x>.json (axis
labels, title, every series with its label and values), and DIR/report.html (the table and every plot).
Kinds: line (default for numeric x), bar (default otherwise), heatmap (x by hue, colour = y),
pareto (two metrics: every point, the non-dominated ones marked and listed in
DIR/plots/<y>-vs-<x>.pareto.csv). wall_s from DIR/timing.csv is a column too. Points that failed (exit_code != 0) or lack the value are left
out of the plots. Several rows with the same x (and hue) are averaged.
"""
import argparse
import csv
import html
import io
import json
import math
import os
import re
import sys

UNITS = {  # value suffixes read as numbers: times in seconds, sizes in bytes
    "ps": 1e-12, "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0,
    "KiB": 1024.0, "MiB": 1024.0 ** 2, "GiB": 1024.0 ** 3, "K": 1e3, "M": 1e6, "G": 1e9,
}
SPECIAL = ("point", "exit_code", "error")
HEADER = []  # the columns of results.csv (the report's table shows these)


class UsageError(Exception):
    pass


def numeric(text):
    """The number a cell holds (plain, hex, or with a time/size unit); None if it holds none."""
    t = text.strip()
    try:
        return float(int(t, 16)) if t.lower().startswith("0x") else float(t)
    except ValueError:
        pass
    m = re.fullmatch(r"([-+]?[0-9.]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z]+)", t)
    if m and m.group(2) in UNITS:
        try:
            return float(m.group(1)) * UNITS[m.group(2)]
        except ValueError:
            return None
    return None


class InputError(UsageError):
    """A damaged input file: named with its line."""

    def __init__(self, path, line, problem):
        super().__init__(f"{path}:{line}: {problem}" if line else f"{path}: {problem}")


def read_text(path):
    """A file's text; a byte that is not UTF-8 is named with its line."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise UsageError(f"{path}: cannot read: {e.strerror}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(path, data[:e.start].count(b"\n") + 1, f"not UTF-8 text ({e.reason})")


def read_table(path, required):
    """The header and rows (dicts) of a CSV file; every row has the header's number of fields."""
    reader = csv.reader(io.StringIO(read_text(path), newline=""))
    try:
        header = next(reader, None)
        if not header or not any(c.strip() for c in header):
            raise InputError(path, 1, "no header line")
        for c in required:
            if c not in header:
                raise InputError(path, 1, f"no '{c}' column in the header ({', '.join(header)})")
        dup = next((c for c in header if header.count(c) > 1), None)
        if dup is not None:
            raise InputError(path, 1, f"column '{dup}' appears twice in the header")
        rows = []
        for fields in reader:
            if not fields:
                continue  # a blank line
            if len(fields) != len(header):
                raise InputError(path, reader.line_num, f"{len(fields)} fields where the header has {len(header)}")
            rows.append(dict(zip(header, fields)))
    except csv.Error as e:
        raise InputError(path, reader.line_num, f"not valid CSV: {e}")
    return header, rows


def line_naming(text, word):
    """The first line of a JSON text that holds "word" (0 when none does)."""
    return next((n for n, l in enumerate(text.splitlines(), 1) if f'"{word}"' in l), 0)


def json_type_error(path, text, key, expected):
    """A wrongly typed key, at the line that names it."""
    if key is None:
        return InputError(path, 1, f"the top level must be {expected}")
    return InputError(path, line_naming(text, key), f"'{key}' must be {expected}")


def read_manifest(path, header):
    """The parameters and metrics a sweep.json names; each must be a column of results.csv."""
    text = read_text(path)
    try:
        m = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(path, e.lineno, f"not valid JSON: {e.msg} (column {e.colno})")
    if not isinstance(m, dict):
        raise json_type_error(path, text, None, "an object")
    params = m.get("parameters")
    if not isinstance(params, list) or not all(isinstance(p, str) for p in params):
        raise json_type_error(path, text, "parameters", "a list of column names")
    metrics = m.get("metrics")
    if not isinstance(metrics, list) or not all(isinstance(x, dict) and isinstance(x.get("name"), str) for x in metrics):
        raise json_type_error(path, text, "metrics", "a list of objects with a 'name'")
    metrics = [x["name"] for x in metrics]
    for what, names in (("parameter", params), ("metric", metrics)):
        for c in names:
            if c not in header:
                raise InputError(path, line_naming(text, c), f"{what} '{c}' is not a column of results.csv")
    return params, metrics


def load(directory):
    path = os.path.join(directory, "results.csv")
    if not os.path.exists(path):
        raise UsageError(f"{path}: no results (run gpuvp sweep first)")
    header, rows = read_table(path, ["point"])
    if not rows:
        raise InputError(path, 2, "no data rows (only the header)")
    HEADER[:] = header
    # Wall times (timing.csv) can be plotted too (--y wall_s), never being in results.csv.
    timing = os.path.join(directory, "timing.csv")
    if os.path.exists(timing):
        _, trows = read_table(timing, ["point", "wall_s"])
        walls = {r["point"]: r["wall_s"] for r in trows}
        for r in rows:
            r.setdefault("wall_s", walls.get(r["point"], ""))
    manifest = os.path.join(directory, "sweep.json")
    if os.path.exists(manifest):
        params, metrics = read_manifest(manifest, header)
    else:  # a table from elsewhere: every non-special column may be either
        params = [c for c in header if c not in SPECIAL]
        metrics = list(params)
    return rows, params, metrics


def safe(name):
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def pareto_front(points, maximize_x=False, maximize_y=False):
    """Indices of the non-dominated (x, y) pairs: minimised unless maximize_* is set."""
    sx = -1.0 if maximize_x else 1.0
    sy = -1.0 if maximize_y else 1.0
    front = []
    for i, (xi, yi) in enumerate(points):
        dominated = False
        for j, (xj, yj) in enumerate(points):
            if j == i:
                continue
            if sx * xj <= sx * xi and sy * yj <= sy * yi and (sx * xj < sx * xi or sy * yj < sy * yi):
                dominated = True
                break
        if not dominated:
            front.append(i)
    return front


def usable(rows, columns):
    """Rows of successful points with a number in each of the columns."""
    out = []
    for r in rows:
        if r.get("exit_code", "0") != "0":
            continue
        if all(numeric(r.get(c, "")) is not None for c in columns if c):
            out.append(r)
    return out


def ordered(values):
    """Distinct values, numerically ordered when all are numbers, else in first-seen order."""
    seen = list(dict.fromkeys(values))
    if all(numeric(v) is not None for v in seen):
        seen.sort(key=numeric)
    return seen


def grouped_mean(rows, x, y, hue):
    groups = {}
    for r in rows:
        groups.setdefault((r.get(hue, "") if hue else "", r[x]), []).append(numeric(r[y]))
    return {k: sum(v) / len(v) for k, v in groups.items()}


def plot(directory, rows, x, y, hue, kind, maximize=()):
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "gpuvp"  # reproducible SVG ids
    import matplotlib.pyplot as plt

    for c in (x, y, hue):
        if c and c not in rows[0]:
            raise UsageError(f"no column '{c}' in results.csv (columns: {', '.join(rows[0].keys())})")
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=80)
    chosen = None
    if kind == "pareto":
        good = usable(rows, [x, y])
        if not good:
            raise UsageError(f"no successful point has numbers for {x} and {y}")
        pts = [(numeric(r[x]), numeric(r[y])) for r in good]
        front = pareto_front(pts, x in maximize, y in maximize)
        chosen = [good[i]["point"] for i in front]
        ax.scatter([p[0] for p in pts], [p[1] for p in pts], color="0.6", label="points")
        fp = sorted(pts[i] for i in front)
        ax.plot([p[0] for p in fp], [p[1] for p in fp], "o-", color="tab:red", label="non-dominated")
        for i in front:
            ax.annotate(good[i]["point"], pts[i], textcoords="offset points", xytext=(4, 4), fontsize=8)
        ax.legend()
    else:
        good = usable(rows, [y])
        if not good:
            raise UsageError(f"no successful point has a number for {y}")
        means = grouped_mean(good, x, y, hue)
        xs = ordered([r[x] for r in good])
        hues = ordered([r[hue] for r in good]) if hue else [""]
        if kind == "heatmap":
            if not hue:
                raise UsageError("--kind heatmap needs --hue (the second axis)")
            grid = [[means.get((h, v), math.nan) for v in xs] for h in hues]
            im = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
            ax.set_xticks(range(len(xs)), xs)
            ax.set_yticks(range(len(hues)), hues)
            ax.set_ylabel(hue)
            fig.colorbar(im, ax=ax, label=y)
            for i, h in enumerate(hues):
                for j, v in enumerate(xs):
                    if not math.isnan(grid[i][j]):
                        ax.text(j, i, f"{grid[i][j]:.3g}", ha="center", va="center", color="w", fontsize=7)
        elif kind == "line":
            nums = [numeric(v) for v in xs]
            if any(n is None for n in nums):
                raise UsageError(f"--kind line needs numbers in {x}; use --kind bar")
            for h in hues:
                pts = [(numeric(v), means[(h, v)]) for v in xs if (h, v) in means]
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=f"{hue}={h}" if hue else None)
            if min(nums) > 0 and max(nums) / min(nums) >= 100:
                ax.set_xscale("log")
            if len(xs) <= 12:
                ax.set_xticks(nums, xs)
                ax.minorticks_off()
        elif kind == "bar":
            width = 0.8 / len(hues)
            for k, h in enumerate(hues):
                ax.bar([i + k * width for i in range(len(xs))], [means.get((h, v), math.nan) for v in xs], width,
                       label=f"{hue}={h}" if hue else None)
            ax.set_xticks([i + width * (len(hues) - 1) / 2 for i in range(len(xs))], xs)
        else:
            raise UsageError(f"--kind {kind}: expected line, bar, heatmap or pareto")
        if hue and kind != "heatmap":
            ax.legend(fontsize=8)
    ax.set_xlabel(x)
    if kind != "heatmap":
        ax.set_ylabel(y)
    ax.set_title(f"{y} vs {x}", fontsize=10)  # the hue is in the legend
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    os.makedirs(os.path.join(directory, "plots"), exist_ok=True)
    base = os.path.join(directory, "plots", f"{safe(y)}-vs-{safe(x)}")
    fig.savefig(base + ".png", metadata={"Software": None})
    fig.savefig(base + ".svg", metadata={"Date": None})
    with open(base + ".json", "w") as f:
        json.dump(describe(fig, ax, kind), f, indent=1)
        f.write("\n")
    plt.close(fig)
    if chosen is not None:
        with open(base + ".pareto.csv", "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["point", x, y])
            for r in good:
                if r["point"] in chosen:
                    w.writerow([r["point"], r[x], r[y]])
    return base, chosen


def number_or_none(v):
    v = float(v)
    return None if math.isnan(v) else v


def describe(fig, ax, kind):
    """What the figure shows, read back from what matplotlib drew: the axis labels, the title,
    and each series (line, bar group, scatter, heatmap row) with its label and values.
    Written beside the plot as <y>-vs-<x>.json for scripts and tests."""
    series = []
    for line in ax.get_lines():
        series.append({"type": "line", "label": line.get_label(),
                       "points": [[number_or_none(a), number_or_none(b)] for a, b in zip(line.get_xdata(), line.get_ydata())]})
    for bars in ax.containers:
        series.append({"type": "bar", "label": bars.get_label(),
                       "values": [number_or_none(r.get_height()) for r in bars.patches]})
    for coll in ax.collections:
        series.append({"type": "scatter", "label": coll.get_label(),
                       "points": [[number_or_none(a), number_or_none(b)] for a, b in coll.get_offsets()]})
    for im in ax.get_images():
        rows = [t.get_text() for t in ax.get_yticklabels()]
        for label, values in zip(rows, im.get_array().filled(math.nan).tolist()):
            series.append({"type": "heatmap-row", "label": label, "values": [number_or_none(v) for v in values]})
    colorbar = [a.get_ylabel() for a in fig.axes if a is not ax]
    return {"kind": kind, "title": ax.get_title(), "xlabel": ax.get_xlabel(), "ylabel": ax.get_ylabel(),
            "colorbar": colorbar[0] if colorbar else None, "xscale": ax.get_xscale(),
            "xticks": [t.get_text() for t in ax.get_xticklabels()], "series": series}


def write_report(directory, rows):
    rows = [{k: v for k, v in r.items() if k != "wall_s" or "wall_s" in HEADER} for r in rows]
    plots = sorted(p for p in os.listdir(os.path.join(directory, "plots")) if p.endswith(".png")) \
        if os.path.isdir(os.path.join(directory, "plots")) else []
    out = ["<!DOCTYPE html>", "<html><head><meta charset=\"utf-8\"><title>gpuvp sweep</title>",
           "<style>body{font-family:sans-serif}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
           "padding:2px 6px;text-align:right}tr.failed{background:#fdd}</style></head><body>",
           f"<h1>gpuvp sweep: {html.escape(os.path.basename(os.path.abspath(directory)))}</h1>",
           f"<p>{len(rows)} points, {sum(r.get('exit_code') != '0' for r in rows)} failed.</p>"]
    for p in plots:
        out.append(f"<figure><img src=\"plots/{html.escape(p)}\" alt=\"{html.escape(p)}\"></figure>")
    out.append("<table>")
    if rows:
        out.append("<tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in rows[0].keys()) + "</tr>")
    for r in rows:
        cls = " class=\"failed\"" if r.get("exit_code") != "0" else ""
        out.append(f"<tr{cls}>" + "".join(f"<td>{html.escape(v or '')}</td>" for v in r.values()) + "</tr>")
    out.append("</table></body></html>")
    tmp = os.path.join(directory, "report.html.tmp")
    with open(tmp, "w") as f:
        f.write("\n".join(out) + "\n")
    os.replace(tmp, os.path.join(directory, "report.html"))


class OneLineParser(argparse.ArgumentParser):
    """gpuvp's conventions: a usage error is one line on standard error, exit 2."""

    def error(self, message):
        sys.stderr.write(f"{self.prog}: {message} (gpuvp plot --help shows the usage)\n")
        sys.exit(2)


# `gpuvp plot` and `gpuvp sweep` run this script on the first Python that has matplotlib: with
# this first argument, a Python without it exits NO_MATPLOTLIB at once, printing nothing, and
# they try the next one (rather than start Python and matplotlib once more to ask beforehand).
IF_MATPLOTLIB = "--exit-3-without-matplotlib"
NO_MATPLOTLIB = 3


def main(argv):
    if argv[:1] == [IF_MATPLOTLIB]:
        argv = argv[1:]
        try:
            import matplotlib  # noqa: F401 (plot() imports it again, at no cost)
        except Exception:  # missing or broken: as `python3 -c "import matplotlib"` failing
            return NO_MATPLOTLIB
    ap = OneLineParser(prog="gpuvp plot", description="plot the results of a gpuvp sweep")
    ap.add_argument("dir", nargs="?")
    ap.add_argument("--x", help="parameter (or metric, for pareto) on the x axis; default: the first parameter")
    ap.add_argument("--y", help="metric on the y axis; default: every metric, one plot each")
    ap.add_argument("--hue", help="parameter drawn as separate lines/bars; default: the second parameter")
    ap.add_argument("--kind", choices=["line", "bar", "heatmap", "pareto"])
    ap.add_argument("--maximize", action="append", default=[], help="pareto: this metric is better when larger")
    a, unknown = ap.parse_known_args(argv)
    if unknown:  # named before a missing DIR: the option is the likelier mistake
        ap.error("unrecognized arguments: " + " ".join(unknown))
    if not a.dir:
        ap.error("the following arguments are required: dir")
    try:
        rows, params, metrics = load(a.dir)
        if a.kind == "pareto":
            if not a.x or not a.y:
                raise UsageError("--kind pareto needs --x and --y (two metrics)")
            todo = [(a.x, a.y, None)]
        else:
            x = a.x or (params[0] if params else "point")
            hue = a.hue if a.hue is not None else next((p for p in params if p != x), None)
            ys = [a.y] if a.y else metrics
            todo = [(x, y, hue) for y in ys]
        drawn = 0
        for x, y, hue in todo:
            kind = a.kind
            if not kind:
                kind = "line" if all(numeric(r.get(x, "")) is not None for r in usable(rows, [])) else "bar"
            try:
                base, chosen = plot(a.dir, rows, x, y, hue, kind, a.maximize)
            except UsageError as e:
                if a.y or a.kind:
                    raise
                print(f"gpuvp plot: {y}: skipped: {e}", file=sys.stderr)
                continue
            drawn += 1
            print(f"gpuvp plot: {base}.png" + (f" (non-dominated points: {' '.join(chosen)})" if chosen is not None else ""))
        write_report(a.dir, rows)
        if not drawn:
            raise UsageError(f"no plot drawn ({'every metric was skipped, see above' if todo else 'sweep.json names no metric'}); "
                             f"the table is in {os.path.join(a.dir, 'report.html')}")
        print(f"gpuvp plot: {os.path.join(a.dir, 'report.html')}")
    except UsageError as e:
        print(f"gpuvp plot: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # a fault of this script, still one line (and no traceback)
        print(f"gpuvp plot: internal error ({type(e).__name__}: {e}); please report it with {a.dir}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
