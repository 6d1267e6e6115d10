#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""One set of command-line conventions for every gpuvp command and tool.

For `gpuvp run`, `gpuvp qtest`, `gpuvp config dump` and every tool `gpuvp --help` lists:
  - `--help` prints the usage on standard output and exits 0 (nothing on standard error);
  - an unknown option is a usage error: exit 2 and one line on standard error naming the option;
  - so is an option that takes a value given without one, and an option that is not repeatable
    given twice (checked with the first such option the --help text lists).

usage: cli_conventions.py GPUVP
"""
import re
import subprocess
import sys

# An option line of a --help text: "  --gen GEN   ...", "  -o [ --output ] OUT  ...", "  -g 5|6  ...".
OPTION = re.compile(r"^  (?:-\w \[ )?(--?[\w-]+)(?: \])? ([^\s\[\]]\S*)\s+(.*)$")


def one_line_usage_error(r, needle):
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    return r.returncode == 2 and len(lines) == 1 and needle in lines[0]


def main():
    gpuvp = sys.argv[1]
    help_text = subprocess.run([gpuvp, "--help"], capture_output=True, text=True, check=True).stdout
    commands, section = [["run"], ["qtest"], ["config", "dump"]], None
    for line in help_text.splitlines():
        if not line.startswith("  "):
            section = line.split(" ")[0].rstrip(":") if line.strip() else section
            continue
        if section == "tools":
            commands.append([line.split()[0]])
    failures = []
    for cmd in commands:
        name = " ".join(cmd)
        r = subprocess.run([gpuvp] + cmd + ["--help"], capture_output=True, text=True, timeout=60)
        r_help = r.stdout
        if r.returncode != 0 or not r.stdout.strip() or r.stderr.strip():
            failures.append(f"gpuvp {name} --help: exit {r.returncode}, {len(r.stdout)} bytes on stdout, "
                            f"stderr {r.stderr.strip()[:200]!r}")
        r = subprocess.run([gpuvp] + cmd + ["--no-such-option"], capture_output=True, text=True, timeout=60)
        if not one_line_usage_error(r, "no-such-option"):
            failures.append(f"gpuvp {name} --no-such-option: exit {r.returncode}, stderr {r.stderr.strip()[:300]!r}")
        # The first option with a value: without it, then given twice (unless repeatable).
        valued = [m for m in map(OPTION.match, r_help.splitlines()) if m]
        if valued:
            opt, arg, text = valued[0].groups()
            r = subprocess.run([gpuvp] + cmd + [opt], capture_output=True, text=True, timeout=60)
            if not one_line_usage_error(r, f"'{opt}' is missing"):
                failures.append(f"gpuvp {name} {opt} (no value): exit {r.returncode}, stderr {r.stderr.strip()[:300]!r}")
            if "(repeatable)" not in text:
                r = subprocess.run([gpuvp] + cmd + [opt, "x", opt, "x"], capture_output=True, text=True, timeout=60)
                if not one_line_usage_error(r, f"'{opt}' cannot be specified more than once"):
                    failures.append(f"gpuvp {name} {opt} x {opt} x: exit {r.returncode}, stderr {r.stderr.strip()[:300]!r}")
        print(f"gpuvp {name}: checked" + (f" (value option {valued[0].group(1)})" if valued else ""))
    for f in failures:
        print("FAIL " + f)
    print(f"{len(commands)} commands, {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
