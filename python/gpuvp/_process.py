# SPDX-License-Identifier: Apache-2.0
"""The gpuvp program as a child process: one `gpuvp run`/`config dump` to its end, or a `gpuvp
qtest` session driven one command line at a time over pipes (docs/qtest.md).

SystemC elaborates one platform per process, so every simulation is its own process; the Python
process never loads the simulator, which keeps it safe in threads and notebooks."""
import os
import shutil
import signal
import subprocess
import tempfile

from . import _paths


class SessionEnded(EOFError):
    """The session's simulation process has ended (after `quit`, or a crash)."""


def program():
    """The gpuvp program to run: $GPUVP_PROGRAM; else the one this package was built or installed
    with; else `gpuvp` on the PATH."""
    env = os.environ.get("GPUVP_PROGRAM")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    built = os.path.normpath(os.path.join(here, _paths.PROGRAM))
    if os.access(built, os.X_OK):
        return built
    found = shutil.which("gpuvp")
    if found:
        return found
    raise FileNotFoundError("gpuvp: the gpuvp program is neither at %s nor on the PATH (set GPUVP_PROGRAM)" % built)


def _died(returncode, err):
    """The RuntimeError of a child killed by a signal (subprocess gives -N)."""
    name = signal.Signals(-returncode).name if -returncode in signal.valid_signals() else str(-returncode)
    text = err.decode(errors="replace").strip()
    return RuntimeError("gpuvp: the simulation process died of signal %d (%s)%s" %
                        (-returncode, name, ": " + text if text else ""))


def run_cli(args):
    """Runs `gpuvp ARGS...` to its end: (exit code, stdout bytes, stderr bytes)."""
    p = subprocess.run([program()] + list(args), stdin=subprocess.DEVNULL, capture_output=True)
    if p.returncode < 0:
        raise _died(p.returncode, p.stderr)
    return p.returncode, p.stdout, p.stderr


class QtestSession:
    """`gpuvp qtest ARGS...` in a child: command() sends a line and returns its answer."""

    def __init__(self, args):
        exe = program()
        # stderr goes to a file, not a pipe: a chatty model cannot fill a pipe nobody reads.
        self._err = tempfile.TemporaryFile(prefix="gpuvp-qtest-err-")
        self._p = subprocess.Popen([exe, "qtest"] + list(args), stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=self._err)
        self._irqs = []
        self._rc = None
        self._err_text = b""

    @property
    def alive(self):
        return self._rc is None

    def command(self, line):
        """Sends one line; returns the answer line ("" for an empty line or a comment, which qtest
        skips without an answer). "IRQ ..." lines before the answer are kept for take_irqs().
        Raises SessionEnded when the simulation process has ended."""
        if "\n" in line:
            raise ValueError("gpuvp: a command is one line")
        if not self.alive:
            raise ValueError("gpuvp: the session is closed")
        if not line or line.startswith("#"):
            return ""
        try:
            self._p.stdin.write(line.encode() + b"\n")
            self._p.stdin.flush()
        except (BrokenPipeError, OSError):
            self._finish()
            raise SessionEnded("the simulation process has ended") from None
        while True:
            reply = self._p.stdout.readline()
            if not reply.endswith(b"\n"):
                self._finish()
                raise SessionEnded("the simulation process has ended")
            reply = reply[:-1].decode(errors="replace")
            if reply.startswith("IRQ "):
                self._irqs.append(reply)
                continue
            return reply

    def take_irqs(self):
        irqs, self._irqs = self._irqs, []
        return irqs

    def close(self):
        """Ends the session (the child reads the end of its input): (exit code, stderr bytes)."""
        self._finish()
        return self._rc, self._err_text

    def _finish(self):
        if self._rc is not None:
            return
        try:
            self._p.stdin.close()
        except OSError:
            pass
        self._p.stdout.read()  # the rest of the answers, up to the child's end
        self._p.stdout.close()
        rc = self._p.wait()
        self._err.seek(0)
        self._err_text = self._err.read()
        self._err.close()
        self._rc = 128 - rc if rc < 0 else rc  # the shell's convention for a signal
