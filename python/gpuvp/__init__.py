# SPDX-License-Identifier: Apache-2.0
"""gpuvp from Python: run simulations, drive the platform's host port, read the configuration.

Every simulation runs the gpuvp program in its own child process (SystemC elaborates one platform
per process), so a script may call run() and open Sessions as often as it likes, from any thread.
See docs/python.md.
"""
import json
import os
import tempfile
import time

from . import _process

__all__ = ["run", "config", "Session", "ModelledError", "CommandFailed", "SessionEnded"]

SessionEnded = _process.SessionEnded


class ModelledError(RuntimeError):
    """The simulated hardware reported an error (exit code 1 of `gpuvp run`): a fault, an
    unhandled interrupt, a failed expectation or the time limit. `stats` holds the statistics
    (with the "run" entry) as run() would have returned them."""

    def __init__(self, message, stats):
        super().__init__(message)
        self.stats = stats


class CommandFailed(RuntimeError):
    """A qtest command answered FAIL (e.g. an address no target decodes)."""


def _value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _options(config, set, platform, workload):
    args = []
    if platform is None or not isinstance(platform, str):
        raise TypeError("platform must be a string")
    if platform != "default":
        args += ["--platform", platform]
    if isinstance(config, (str, os.PathLike)):
        config = [config]
    for c in config:
        args += ["--config", os.fspath(c)]
    for key, v in dict(set).items():
        args += ["--set", "%s=%s" % (key, _value(v))]
    if workload is not None:
        args += ["--workload", os.fspath(workload)]
    return args


def _problem(err):
    """The diagnostics of a failed command, without the program's prefixes."""
    lines = [l for l in err.decode(errors="replace").splitlines() if l.strip()]
    cleaned = []
    for l in lines:
        for prefix in ("gpuvp: configuration error: ", "gpuvp: error: "):
            if l.startswith(prefix):
                l = l[len(prefix):]
        cleaned.append(l)
    return "\n".join(cleaned) or "gpuvp failed"


def _time(name, v):
    """A time option's text: a string with its unit ("10 ns"); a bare number is refused."""
    if isinstance(v, str):
        return v
    raise TypeError("%s must be a time with its unit, as a string such as '10 ns' (got %r)" % (name, v))


def _run_options(trace, vcd, quantum, time_limit, wall_limit):
    """The `gpuvp run` options of run()'s keywords, each as the command line spells it."""
    args = []
    for option, path in (("--trace", trace), ("--vcd", vcd)):
        if path is not None:
            args += [option, os.fspath(path)]
    for option, name, v in (("--quantum", "quantum", quantum), ("--time-limit", "time_limit", time_limit)):
        if v is not None:
            args += [option, _time(name, v)]
    if wall_limit is not None:
        if isinstance(wall_limit, bool) or not isinstance(wall_limit, (int, float, str)):
            raise TypeError("wall_limit must be seconds (a number) or a time string such as '30 s'")
        args += ["--wall-limit", wall_limit if isinstance(wall_limit, str) else "%r s" % float(wall_limit)]
    return args


def run(workload=None, config=[], set={}, platform="default", trace=None, vcd=None, quantum=None,
        time_limit=None, wall_limit=None):
    """Runs like `gpuvp run` and returns the statistics as a dict: what --stats writes, with its
    "run" metadata entry completed by simulated_ns, report (the printed report) and stderr.

    trace, vcd: files written as --trace/--vcd write them; quantum, time_limit: times with their
    unit ("10 us"); wall_limit: seconds (a number) or a time string. Raises ModelledError
    (carrying the same dict) on a modelled error and ValueError, naming the key, option or
    workload, on a configuration or usage error."""
    args = ["run"] + _options(config, set, platform, workload) + _run_options(trace, vcd, quantum, time_limit, wall_limit)
    fd, path = tempfile.mkstemp(prefix="gpuvp-stats-", suffix=".json")
    os.close(fd)
    try:
        start = time.monotonic()
        rc, out, err = _process.run_cli(args + ["--stats", path])
        wall = time.monotonic() - start
        if rc == 2:
            raise ValueError(_problem(err))
        stats = {}
        if os.path.getsize(path):
            with open(path) as f:
                stats = json.load(f)
    finally:
        os.unlink(path)
    # The program's own run metadata (version, sim_time_ps, wall_s, workload, config_sha256,
    # exit_code, errors), completed with what only the caller sees.
    meta = stats.setdefault("run", {})
    meta.setdefault("exit_code", rc)
    meta.setdefault("wall_s", wall)
    meta.setdefault("workload", workload)
    meta["simulated_ns"] = meta.get("sim_time_ps", 0) // 1000
    meta["report"] = out.decode(errors="replace")
    meta["stderr"] = err.decode(errors="replace")
    if rc == 1:
        raise ModelledError(_problem(err), stats)
    if rc != 0:
        raise RuntimeError("gpuvp run exited with status %d: %s" % (rc, _problem(err)))
    return stats


def config(config=[], set={}, platform="default", workload=None):
    """The effective configuration as a dict, as `gpuvp config dump` prints it (a nested mapping
    of every parameter; integers as ints, times and sizes as the strings the YAML accepts)."""
    import yaml

    rc, out, err = _process.run_cli(["config", "dump"] + _options(config, set, platform, workload))
    if rc == 2:
        raise ValueError(_problem(err))
    if rc != 0:
        raise RuntimeError("gpuvp config dump exited with status %d: %s" % (rc, _problem(err)))
    return yaml.safe_load(out.decode())


def _number(text):
    try:
        return int(text, 0)
    except ValueError:
        return float(text)


class Session:
    """The platform elaborated (like `gpuvp qtest`) and driven through its host port.

    Accesses are timed transactions from the host initiator; simulated time advances with each.
    Use as a context manager or call close(). Typed methods raise CommandFailed on a FAIL answer;
    command() returns any qtest answer as it is (docs/qtest.md)."""

    _chunk = 1 << 20  # the largest qtest read/write

    def __init__(self, config=[], set={}, platform="default", workload=None):
        self._s = _process.QtestSession(_options(config, set, platform, workload))
        self.exit_code = None
        self.irqs = []  # "IRQ raise N" / "IRQ lower N" lines after irq_intercept
        # The platform is elaborated before the first command is read: a configuration error
        # shows here, not at the first access.
        self.command("stats platform.")

    def command(self, line):
        """Sends one qtest command line and returns its answer line ("OK ..." or "FAIL ...").
        An empty line or a comment ("# ...") has no answer in qtest: it returns "" unsent."""
        try:
            reply = self._s.command(line)
        except SessionEnded:
            rc, err = self._s.close()
            self.exit_code = rc
            if rc == 2:
                raise ValueError(_problem(err)) from None
            raise SessionEnded("gpuvp: the simulation ended (exit %d): %s" % (rc, _problem(err))) from None
        self.irqs += self._s.take_irqs()
        return reply

    def _ok(self, line):
        reply = self.command(line)
        if not reply.startswith("OK"):
            raise CommandFailed("%s: %s" % (line if len(line) < 80 else line[:77] + "...", reply))
        return reply[3:]

    def read(self, addr, size):
        """Reads `size` bytes at host physical address `addr` (timed)."""
        data = bytearray()
        while size > 0:
            n = min(size, self._chunk)
            data += bytes.fromhex(self._ok("read 0x%x %d" % (addr, n))[2:])
            addr += n
            size -= n
        return bytes(data)

    def write(self, addr, data):
        """Writes the bytes `data` at host physical address `addr` (timed)."""
        data = bytes(data)
        for off in range(0, len(data), self._chunk):
            part = data[off:off + self._chunk]
            self._ok("write 0x%x %d 0x%s" % (addr + off, len(part), part.hex()))

    def readl(self, addr):
        return int(self._ok("readl 0x%x" % addr), 16)

    def writel(self, addr, value):
        self._ok("writel 0x%x 0x%x" % (addr, value))

    def readq(self, addr):
        return int(self._ok("readq 0x%x" % addr), 16)

    def writeq(self, addr, value):
        self._ok("writeq 0x%x 0x%x" % (addr, value))

    def clock_step(self, ns=None):
        """Advances simulated time by `ns` nanoseconds (or to the next event); returns now in ns."""
        return int(self._ok("clock_step" if ns is None else "clock_step %d" % ns))

    def stats(self, prefix=""):
        """Counters and gauges (histograms: their count) under `prefix`, as {path: number}."""
        result = {}
        for item in self._ok("stats" if not prefix else "stats " + prefix).split():
            path, _, value = item.partition("=")
            result[path] = _number(value)
        return result

    def close(self):
        """Ends the simulation; returns the exit code of `gpuvp qtest`."""
        if self._s.alive:
            rc, _ = self._s.close()
            self.exit_code = rc
        return self.exit_code

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        s = getattr(self, "_s", None)
        if s is not None and s.alive:
            s.close()
