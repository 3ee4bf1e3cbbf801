"""Events the hook could not record, counted where ``gov doctor`` looks.

The hook never writes to stderr about telemetry (its stderr reaches the agent's harness), so
an unwritable or refused ``GOV_TELEMETRY_PATH`` would lose every event unseen. Each loss is
counted instead in a small JSON file in a folder the caller names (the runtime folder),
under a lock, and ``gov doctor`` reads it back: how many, since when, and the last reason.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass
from pathlib import Path

import orjson

FILE_NAME = "telemetry-lost.json"
_LIMIT = 64 * 1024  # the file holds a count and one reason; anything larger is not ours

try:
    import fcntl
except ImportError:  # pragma: no cover - non-POSIX
    fcntl = None  # type: ignore[assignment]


@dataclass(frozen=True)
class Losses:
    """How many events were lost, the first and last time (epoch seconds), the last reason."""

    count: int
    first: float
    last: float
    reason: str


def _parse(data: bytes) -> Losses | None:
    try:
        raw = orjson.loads(data)
        return Losses(int(raw["count"]), float(raw["first"]), float(raw["last"]),
                      str(raw["reason"])[:500])
    except (ValueError, TypeError, KeyError):
        return None


def count_loss(folder: str | os.PathLike[str], reason: str) -> None:
    """Add one lost event with ``reason`` to the count in ``folder``. Never raises."""
    with contextlib.suppress(Exception):
        _count(Path(folder) / FILE_NAME, reason)


def _count(path: Path, reason: str) -> None:
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags | os.O_NONBLOCK, 0o600)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        previous = _parse(os.pread(fd, _LIMIT, 0))
        now = time.time()
        losses = Losses((previous.count if previous else 0) + 1,
                        previous.first if previous else now, now, reason[:500])
        data = orjson.dumps(losses.__dict__)
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)
    finally:
        os.close(fd)


def read_losses(folder: str | os.PathLike[str]) -> Losses | None:
    """The losses counted in ``folder``, or ``None`` when there are none (or none readable)."""
    from ..bounded import read_regular

    try:
        return _parse(read_regular(Path(folder) / FILE_NAME, _LIMIT))
    except OSError:
        return None


def clear_losses(folder: str | os.PathLike[str]) -> None:
    """Forget the counted losses (once the log is writable again)."""
    with contextlib.suppress(OSError):
        os.unlink(Path(folder) / FILE_NAME)
