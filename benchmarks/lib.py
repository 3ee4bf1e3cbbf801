"""The benchmarks' shared harness (standard library only): the repository's paths, one child
process measured alone, percentiles, and figures printed side by side with their ratio.

Every benchmark runs as ``python benchmarks/NAME.py``, which puts this folder on
``sys.path``, so ``from lib import ...`` works from any working folder.
"""

from __future__ import annotations

import contextlib
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
BENCHMARKS = REPO / "benchmarks"
RESULTS = BENCHMARKS / "results"
EXAMPLES = REPO / "examples"
DEFAULT_EVAL_DIR = REPO.parent / "shared" / "eval"


def gov_command(python: str = sys.executable) -> list[str]:
    """How to run gov under ``python``: the ``gov`` script beside it, else this checkout's."""
    installed = Path(python).parent / "gov"
    return [str(installed)] if installed.exists() else [python, str(REPO / "scripts" / "gov")]


def import_repo() -> None:
    """Make this checkout importable (``tests.…`` helpers; ``gov`` itself comes from the venv)."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))


@dataclass
class Run:
    """One child process: wall and CPU seconds, its own peak RSS, exit code and output."""

    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    code: int
    stdout: bytes
    stderr: str

    def checked(self, what: str) -> Run:
        if self.code != 0:
            tail = self.stderr.strip().splitlines()[-5:]
            raise SystemExit(f"{what} exited {self.code}:\n" + "\n".join(tail))
        return self


def run(cmd: Sequence[str], *, stdin: Path | bytes | None = None, stdout: Path | None = None,
        env: dict[str, str] | None = None, cwd: Path | None = None,
        interrupt_after: float | None = None) -> Run:
    """Run ``cmd`` and measure it alone (``os.wait4``: this child's own CPU and peak RSS).

    ``stdin``: a file or bytes; ``stdout``: a file to write (else kept in memory);
    ``interrupt_after``: send SIGINT after that many seconds, as a user's Ctrl-C would.
    """
    with contextlib.ExitStack() as files:
        err = files.enter_context(tempfile.TemporaryFile())
        if stdout:
            out = files.enter_context(open(stdout, "wb"))
        else:
            out = files.enter_context(tempfile.TemporaryFile())
        source: Any = subprocess.DEVNULL
        if isinstance(stdin, Path):
            source = files.enter_context(open(stdin, "rb"))
        elif stdin is not None:
            source = files.enter_context(tempfile.TemporaryFile())
            source.write(stdin)
            source.seek(0)
        start = time.perf_counter()
        process = subprocess.Popen(list(cmd), stdin=source, stdout=out, stderr=err, env=env,
                                   cwd=cwd)
        if interrupt_after:
            timer = threading.Timer(interrupt_after, process.send_signal, (signal.SIGINT,))
            timer.start()
            files.callback(timer.cancel)
        _pid, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        out.seek(0)
        return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024,
                   process.returncode, b"" if stdout else out.read(),
                   err.read().decode("utf-8", errors="replace"))


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) by rank: the value below which a share ``q`` of samples lie."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(label: str, values: Sequence[float], unit: str = "ms") -> str:
    """``label: median …, p90 …, p99 …, min …, max …`` of ``values``."""
    return (f"{label}: median {median(values):.2f} {unit}, p90 {percentile(values, 0.90):.2f}, "
            f"p99 {percentile(values, 0.99):.2f}, min {min(values):.2f}, max {max(values):.2f} "
            f"{unit} (n={len(values)})")


def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def side_by_side(label: str, ours: float, theirs: float, unit: str = "ms",
                 names: tuple[str, str] = ("this", "baseline")) -> str:
    """One figure measured two ways, with ``ours / theirs``."""
    ratio = ours / theirs if theirs else float("inf")
    return (f"{label:<34} {names[0]} {ours:>9.2f} {unit}   {names[1]} {theirs:>9.2f} {unit}"
            f"   {ratio:.2f}x")
