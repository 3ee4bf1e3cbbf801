"""The benchmarks' shared harness (standard library only): the repository's paths, one child
process measured alone, percentiles, and figures printed side by side with their ratio.

Every benchmark runs as ``python benchmarks/NAME.py``, which puts this folder on
``sys.path``, so ``from lib import ...`` works from any working folder.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
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


# The measuring parent: small and fresh, because Linux counts a child's memory from before its
# exec, so a child started from a large process (one holding an index, say) would report that
# process's size as its own peak.
_PARENT = """
import os, signal, subprocess, sys, threading, time
report, interrupt, command = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
start = time.perf_counter()
child = subprocess.Popen(command)
if interrupt:
    threading.Timer(interrupt, child.send_signal, (signal.SIGINT,)).start()
_pid, status, usage = os.wait4(child.pid, 0)
wall = time.perf_counter() - start
with open(report, "w") as handle:
    handle.write(f"{wall} {usage.ru_utime + usage.ru_stime} {usage.ru_maxrss} "
                 f"{os.waitstatus_to_exitcode(status)}")
os._exit(0)
"""


def run(cmd: Sequence[str], *, stdin: Path | bytes | None = None, stdout: Path | None = None,
        env: dict[str, str] | None = None, cwd: Path | None = None,
        interrupt_after: float | None = None) -> Run:
    """Run ``cmd`` and measure it alone: its wall time, its own CPU time and peak RSS
    (through a small fresh parent, ``_PARENT``), exit code, stdout and stderr.

    ``stdin``: a file or bytes; ``stdout``: a file to write (else kept in memory);
    ``interrupt_after``: send SIGINT after that many seconds, as a user's Ctrl-C would.
    """
    with contextlib.ExitStack() as files:
        folder = Path(files.enter_context(tempfile.TemporaryDirectory(prefix="gov-bench-")))
        err = files.enter_context(open(folder / "stderr", "w+b"))
        out = files.enter_context(open(stdout or folder / "stdout", "w+b"))
        source: Any = subprocess.DEVNULL
        if isinstance(stdin, Path):
            source = files.enter_context(open(stdin, "rb"))
        elif stdin is not None:
            (folder / "stdin").write_bytes(stdin)
            source = files.enter_context(open(folder / "stdin", "rb"))
        report = folder / "report"
        subprocess.run([sys.executable, "-c", _PARENT, str(report), str(interrupt_after or 0),
                        *cmd], stdin=source, stdout=out, stderr=err, env=env, cwd=cwd, check=False)
        try:
            wall, cpu, peak_kb, code = report.read_text().split()
        except (OSError, ValueError):
            err.seek(0)
            problem = err.read().decode(errors="replace")[-500:]
            raise SystemExit(f"could not run {cmd[0]}: {problem}") from None
        err.seek(0)
        out.seek(0)
        return Run(float(wall), float(cpu), int(peak_kb) / 1024, int(code),
                   b"" if stdout else out.read(), err.read().decode("utf-8", errors="replace"))


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
