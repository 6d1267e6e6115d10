#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs the examples of a Markdown file, so that documentation that no longer works fails CI.

A fenced block is an example when the line before its opening fence is an HTML comment
`<!-- example ... -->` (invisible when rendered). Attributes in the comment:
  exit=N          the expected exit status (default 0)
  contains="T"    the standard output must contain T (repeatable)
  stderr="T"      the standard error must contain T (repeatable)
  timeout=S       seconds the block may take (default 240)
A block that shows a gpuvp command and cannot run in a test (it installs packages, needs a Slurm
cluster, or is a usage synopsis) is preceded by `<!-- not-run: REASON -->` instead; --covered
fails on a block that shows a gpuvp command with neither marker.
Blocks of language sh/bash/console run with bash -e -o pipefail; python blocks with python3.
In a block whose lines start with "$ ", those lines are the commands and the other lines are
their expected standard output, exactly.

Examples run in a scratch folder that links every top-level entry of the source tree and has
`build` pointing at the build tree, so `build/gpuvp`, `examples/...` and `docs/...` work as in a
checkout and files that examples write stay out of the checkout. `gpuvp` is also on PATH, and
PYTHONPATH holds the built Python package.

usage: run_examples.py SOURCE_DIR BUILD_DIR FILE.md...     (exit 0 when every example passes)
       run_examples.py --covered SOURCE_DIR FILE.md...     (every gpuvp command block is marked)
       run_examples.py --links SOURCE_DIR FILE.md...       (every relative link stays in the tree)
       run_examples.py --self-contained SOURCE_DIR FILE.md...
                       (no paths outside the tree, no internal notes or jargon: see INTERNAL)
       run_examples.py --figures SOURCE_DIR FILE.md...      (every measured figure is checked or
                       marked: see check_figures)
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)")
MARKER = re.compile(r"^\s*<!--\s*example\b(.*?)-->\s*$")
NOT_RUN = re.compile(r"^\s*<!--\s*not-run:\s*\S.*-->\s*$")
# A line that runs gpuvp or a program built on it (a command, a transcript's "$ ", after | && ;).
COMMAND = re.compile(r"(^\s*(\$ )?|\|\s*|&&\s*|;\s*)(\S*/)?(gpuvp|my-gpuvp|gpuvp-rtl-example)(\s|$)")
NOT_SHELL = {"cpp", "c", "yaml", "python", "py", "json", "cmake", "systemverilog", "verilog", "text"}


def examples(path):
    """(line number, language, attributes, body) of each marked block."""
    lines = open(path, encoding="utf-8").read().splitlines()
    found = []
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if m and i + 1 < len(lines) and FENCE.match(lines[i + 1]):
            fence = FENCE.match(lines[i + 1])
            attrs = {"exit": "0", "contains": [], "stderr": [], "timeout": "240"}
            for word in shlex.split(m.group(1).strip().lstrip(":")):
                key, _, value = word.partition("=")
                if key in ("contains", "stderr"):
                    attrs[key].append(value)
                elif key in ("exit", "timeout"):
                    attrs[key] = value
                else:
                    raise SystemExit("%s:%d: unknown example attribute %r" % (path, i + 1, key))
            body = []
            j = i + 2
            while j < len(lines) and not lines[j].strip().startswith(fence.group(2)):
                body.append(lines[j])
                j += 1
            found.append((i + 2, fence.group(3) or "sh", attrs, body))
            i = j
        i += 1
    return found


def scratch_tree(source, build):
    d = tempfile.mkdtemp(prefix="gpuvp-doc-")
    for name in os.listdir(source):
        if name not in ("build", ".git"):
            os.symlink(os.path.join(source, name), os.path.join(d, name))
    os.symlink(build, os.path.join(d, "build"))
    return d


def run_one(where, lang, attrs, body, env):
    transcript = any(l.startswith("$ ") for l in body)
    if transcript:
        script = "\n".join(l[2:] for l in body if l.startswith("$ "))
        expected = "\n".join(l for l in body if not l.startswith("$ ") and l.strip())
    else:
        script, expected = "\n".join(body), None
    if lang in ("python", "py", "python3"):
        cmd = [sys.executable, "-c", script]
    else:
        cmd = ["bash", "-e", "-o", "pipefail", "-c", script]
    try:
        r = subprocess.run(cmd, cwd=where, env=env, capture_output=True, text=True, timeout=float(attrs["timeout"]))
    except subprocess.TimeoutExpired:
        return ["did not end within %s s" % attrs["timeout"]]
    problems = []
    if str(r.returncode) != attrs["exit"]:
        problems.append("exit status %d, expected %s" % (r.returncode, attrs["exit"]))
    for text in attrs["contains"]:
        if text not in r.stdout:
            problems.append("output does not contain %r" % text)
    for text in attrs["stderr"]:
        if text not in r.stderr:
            problems.append("standard error does not contain %r" % text)
    if expected is not None and r.stdout.strip() != expected.strip():
        problems.append("output differs:\n--- expected\n%s\n--- got\n%s" % (expected, r.stdout.rstrip()))
    if problems:
        problems.append("stderr:\n" + r.stderr.rstrip()[-3000:])
    return problems


def check_examples(source, build, files):
    where = scratch_tree(source, build)
    env = dict(os.environ)
    env["PATH"] = build + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = os.path.join(build, "python") + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["CCACHE_BASEDIR"] = where  # a build in the scratch folder (README's quick build) shares ccache's hits
    failed = count = 0
    try:
        for f in files:
            for line, lang, attrs, body in examples(f):
                count += 1
                problems = run_one(where, lang, attrs, body, env)
                name = "%s:%d" % (os.path.relpath(f, source), line)
                if problems:
                    failed += 1
                    print("FAIL %s\n  %s" % (name, "\n  ".join("\n".join(problems).splitlines())))
                else:
                    print("ok   %s" % name)
    finally:
        shutil.rmtree(where)  # the links and what the examples wrote, never what the links name
    print("%d example(s), %d failed" % (count, failed))
    return 1 if failed or count == 0 else 0


def check_covered(source, files):
    """Every fenced block that shows a gpuvp command runs as an example or says why it cannot."""
    bad = 0
    for f in files:
        lines = open(f, encoding="utf-8").read().splitlines()
        i = 0
        while i < len(lines):
            fence = FENCE.match(lines[i])
            if not fence:
                # An indented code block (after a blank line) cannot carry a marker: fence it.
                if lines[i].startswith("    ") and i and not lines[i - 1].strip() and COMMAND.search(lines[i]):
                    print("%s:%d: a gpuvp command in an indented code block: make it a fenced block and mark it "
                          "<!-- example ... --> or <!-- not-run: REASON -->" % (os.path.relpath(f, source), i + 1))
                    bad += 1
                i += 1
                continue
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(fence.group(2)):
                j += 1
            before = lines[i - 1] if i else ""
            shows = fence.group(3) not in NOT_SHELL and any(COMMAND.search(l) for l in lines[i + 1:j])
            if shows and not MARKER.match(before) and not NOT_RUN.match(before):
                print("%s:%d: a gpuvp command block that no test runs: mark it <!-- example ... --> "
                      "(tests/docs/run_examples.py) or <!-- not-run: REASON -->" % (os.path.relpath(f, source), i + 1))
                bad += 1
            i = j + 1
    print("%d file(s) checked, %d unmarked command block(s)" % (len(files), bad))
    return 1 if bad else 0


LINK = re.compile(r"\]\(([^)\s]+)\)")


def check_links(source, files):
    """Relative links must name files inside the source tree that exist; no absolute paths."""
    bad = 0
    for f in files:
        for n, line in enumerate(open(f, encoding="utf-8"), 1):
            for target in LINK.findall(line):
                if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                    continue
                path = target.split("#")[0]
                full = os.path.realpath(os.path.join(os.path.dirname(f), path))
                inside = full.startswith(os.path.realpath(source) + os.sep)
                if path.startswith("/") or not inside or not os.path.exists(full):
                    print("%s:%d: link %s %s" % (os.path.relpath(f, source), n, target,
                                                  "leaves the repository" if not inside or path.startswith("/")
                                                  else "names no file"))
                    bad += 1
    print("%d file(s) checked, %d bad link(s)" % (len(files), bad))
    return 1 if bad else 0


# The pages are self-contained: they name the public sources a model follows (envytools, Mesa,
# Asahi Linux / m1n1, GPGPU-Sim / Accel-Sim), never the developers' working files or notes.
# "seed" stays allowed in its random-number sense (`traffic.gN.seed`, `tlb_seed`, fuzz seeds,
# "seed of the random pattern", `seed: S`); its use for a specification text is not.
INTERNAL = [
    (re.compile(r"shared/seeds|shared/reference|shared/design|\.\./shared|/work/"),
     "names a folder outside the repository"),
    (re.compile(r"\bthe seeds?\b(?!\s+of\b)", re.I), "says \"the seed\" for a specification: name the public source"),
    (re.compile(r"\bseeds?(?:'s|')(?!\w)", re.I), "says \"seed's\": name the public source"),
    (re.compile(r"\bseed\s+(?:enums?|passages?|documents?|texts?|notes?|pseudocode|trace|says|bug)\b", re.I),
     "calls a specification \"seed\": name the public source"),
    (re.compile(r"\((?:seed|literal seed)\b|\bliteral seed\b|\bseed/", re.I),
     "calls a specification \"seed\": name the public source"),
    (re.compile(r"\b(?:in|no|any|GPU) seeds?\b(?!\s+of\b)", re.I), "calls a specification \"seed\": name the public source"),
    (re.compile(r"\bseed:\s+[a-z]{2,}"), "\"seed:\" followed by prose: name the public source"),
    (re.compile(r"\bthe lead\b(?![- ]time)|\blead owns\b|\(not added\b", re.I), "is an internal note"),
]


def check_self_contained(source, files):
    """No path outside the tree, no internal note, no "seed" meaning a specification text."""
    bad = 0
    for f in files:
        for n, line in enumerate(open(f, encoding="utf-8"), 1):
            for pattern, why in INTERNAL:
                m = pattern.search(line)
                if m:
                    print("%s:%d: %r %s" % (os.path.relpath(f, source), n, m.group(0), why))
                    bad += 1
    print("%d file(s) checked, %d internal reference(s)" % (len(files), bad))
    return 1 if bad else 0


# A measured figure: cycles, a percentage, a rate or speed-up, or a wall/CPU time (a time on a line
# that says it was measured). Configuration values, ranges and thresholds are not figures.
FIGURE = re.compile(r"(?<![\w.^])(\d{3}[\d,.]*(?: \d{3})*|\d{1,2}(?: \d{3})+)\s?cycles\b|(?<![\w.^])(\d[\d,.]*)\s?(?:%|[kMG]?B/s\b|M? ?[a-z]+(?: [a-z]+)?/s\b)|(?<![\w.^])(\d[\d.]*)×")
TIMING = re.compile(r"(?<![\w.])(\d[\d.]*)\s?(?:ms|s)\b")
MEASURED = re.compile(r"\b(?:wall time:|CPU|took|takes|median|measured|for the sweep|a point|for the \d+ points)", re.I)
BOUND = re.compile(r"(?:at least|at most|above|below|under|over|than|up to|within|never|capped at|≤|≥|<=|>=|<|>|every|default|goal|\[)\s*$", re.I)
UNCHECKED = re.compile(r"^\s*\*Figures not checked by a test: \S.*\*\s*$")
UNCHECKED_TEXT = "not checked by a test"
HEADING = re.compile(r"^(#+)\s")
# A table of results: its header names a measured quantity; every number in its rows is a figure.
RESULT_TABLE = re.compile(r"cycles|IPC|speed|\brate\b|measured|simulated time|wall|ns per|per second|/s\b|%|Accel-Sim", re.I)
TABLE_SEPARATOR = re.compile(r"^\|[\s:|-]+\|\s*$")
NUMBER = re.compile(r"(?<![\w.])(\d[\d,.]*)")


def figures(line):
    """The measured figures a line quotes (the numbers, as written)."""
    found = []
    for pattern in ([FIGURE, TIMING] if MEASURED.search(line) else [FIGURE]):
        for m in pattern.finditer(line):
            if not BOUND.search(line[:m.start()][-14:]):
                found.append(next(g for g in m.groups() if g).rstrip(".,"))
    return found


def checked_text(path):
    """What the page's examples check: their expected outputs and contains/stderr texts."""
    text = []
    for _, _, attrs, body in examples(path):
        text += attrs["contains"] + attrs["stderr"]
        if any(l.startswith("$ ") for l in body):
            text += [l for l in body if not l.startswith("$ ")]
    return "\n".join(text)


def check_figures(source, files):
    """Every measured figure in prose, tables and output blocks is one the page's examples check
    (it appears in what they expect), or lies in a section marked `*Figures not checked by a
    test: REASON*` (the marker covers the rest of its section, subsections included), or in a
    paragraph that says "not checked by a test"."""
    bad = 0
    for f in files:
        lines = open(f, encoding="utf-8").read().splitlines()
        checked = checked_text(f)
        in_example = set()
        for line, _, _, body in examples(f):
            in_example.update(range(line, line + len(body) + 1))
        marked_level = None  # the heading level whose section the last marker covers
        # Paragraphs (runs of non-blank lines) that say they quote figures no test checks.
        exempt, start = set(), 0
        for n in range(len(lines) + 1):
            if n == len(lines) or not lines[n].strip():
                if any(UNCHECKED_TEXT in l for l in lines[start:n]):
                    exempt.update(range(start + 1, n + 1))
                start = n + 1
        level = 0
        fence = None
        result_rows = False  # inside the body of a table of results
        for n, line in enumerate(lines, 1):
            if not line.startswith("|"):
                result_rows = False
            elif n < len(lines) and TABLE_SEPARATOR.match(lines[n]) and fence is None:
                result_rows = bool(RESULT_TABLE.search(line))
                continue
            h = HEADING.match(line)
            if h and fence is None:
                level = len(h.group(1))
                if marked_level is not None and level <= marked_level:
                    marked_level = None
                continue
            if UNCHECKED.match(line):
                marked_level = level
                continue
            m = FENCE.match(line)
            if m and fence is None:
                fence = m.group(3) or "text"
                continue
            if m and fence is not None and line.strip().startswith(m.group(2)):
                fence = None
                continue
            if marked_level is not None or n in in_example or n in exempt or (fence is not None and fence not in ("text", "console", "sh")):
                continue
            if fence == "sh":
                line = line.split("#", 1)[1] if "#" in line else ""  # a command's comment may quote a result
            found = [x.rstrip(".,") for x in NUMBER.findall(line)] if result_rows and not TABLE_SEPARATOR.match(line) else figures(line)
            loose = [x for x in found if not re.search(r"(?<![\d.])" + re.escape(x) + r"(?![\d])", checked)]
            if loose:
                print("%s:%d: figure(s) %s that no example on the page checks: check them in an example, or mark "
                      "the section *Figures not checked by a test: REASON* or say \"not checked by a test\" in the "
                      "paragraph (docs/testing.md)" % (os.path.relpath(f, source), n, ", ".join(loose)))
                bad += 1
    print("%d file(s) checked, %d line(s) with unchecked figures" % (len(files), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--self-contained":
        sys.exit(check_self_contained(os.path.abspath(sys.argv[2]), sys.argv[3:]))
    if len(sys.argv) >= 3 and sys.argv[1] == "--covered":
        sys.exit(check_covered(os.path.abspath(sys.argv[2]), sys.argv[3:]))
    if len(sys.argv) >= 3 and sys.argv[1] == "--figures":
        sys.exit(check_figures(os.path.abspath(sys.argv[2]), sys.argv[3:]))
    if len(sys.argv) >= 3 and sys.argv[1] == "--links":
        sys.exit(check_links(os.path.abspath(sys.argv[2]), sys.argv[3:]))
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    sys.exit(check_examples(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3:]))
