#!/usr/bin/env python3
"""One set of command-line conventions for every gpuvp command and tool.

For `gpuvp run`, `gpuvp qtest`, `gpuvp config dump` and every tool `gpuvp --help` lists:
  - `--help` prints the usage on standard output and exits 0 (nothing on standard error);
  - an unknown option is a usage error: exit 2 and one line on standard error naming the option.

usage: cli_conventions.py GPUVP
"""
import subprocess
import sys


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
        if r.returncode != 0 or not r.stdout.strip() or r.stderr.strip():
            failures.append(f"gpuvp {name} --help: exit {r.returncode}, {len(r.stdout)} bytes on stdout, "
                            f"stderr {r.stderr.strip()[:200]!r}")
        r = subprocess.run([gpuvp] + cmd + ["--no-such-option"], capture_output=True, text=True, timeout=60)
        lines = [l for l in r.stderr.splitlines() if l.strip()]
        if r.returncode != 2 or len(lines) != 1 or "no-such-option" not in lines[0]:
            failures.append(f"gpuvp {name} --no-such-option: exit {r.returncode}, stderr {r.stderr.strip()[:300]!r}")
        print(f"gpuvp {name}: checked")
    for f in failures:
        print("FAIL " + f)
    print(f"{len(commands)} commands, {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
