"""Reading a file gov was pointed at (an operating point, a lint config, a contract, cards):
a regular file only, opened without blocking, and at most a limit of bytes.

A FIFO would block ``open`` forever, a device never ends, and a link to a huge file costs
memory: each is an ``OSError`` here whose ``strerror`` callers put in their one-line error.
"""

from __future__ import annotations

import errno
import os
import stat

MEGABYTE = 1024 * 1024


class NotRegularFile(OSError):
    """The path is a FIFO, device, socket or folder, not a file."""


class FileTooLarge(OSError):
    """The file holds more than the reader's limit."""


def open_regular(path: str | os.PathLike[str]) -> int:
    """A descriptor for reading ``path``, which must be a regular file (never blocks)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", str(path))
        if not stat.S_ISREG(mode):
            raise NotRegularFile(0, "not a regular file (a FIFO, device or socket)", str(path))
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them (the size ``stat``
    reports is not trusted: the read stops at the limit)."""
    fd = open_regular(path)
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise FileTooLarge(0, f"over the {limit:,}-byte limit for this file", str(path))
    return data
