"""Replace files whole: a reader sees the old file or the new one, never a mix."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO


def _mode_for(target: Path) -> int:
    """The permissions ``target`` should end with: those it has, else 0666 less the umask."""
    try:
        return os.stat(target).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike[str], *, parents: bool = True,
                  mode: int | None = None) -> Iterator[BinaryIO]:
    """Yield a temp file beside ``path``; on success fsync and rename it over ``path``.

    Missing folders are created unless ``parents`` is false (then ``FileNotFoundError``). A
    new file gets the permissions any program would give it (0666 less the umask), a
    replaced one keeps its own; ``mode`` (0o600 for private state) overrides both. On any
    failure (including KeyboardInterrupt) the temp file is removed and the previous file at
    ``path`` is left untouched.
    """
    target = Path(path)
    if parents:
        target.parent.mkdir(parents=True, exist_ok=True)
    elif not target.parent.is_dir():
        raise FileNotFoundError(2, "No such directory", str(target.parent))
    mode = _mode_for(target) if mode is None else mode
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_bytes_atomic(path: str | os.PathLike[str], data: bytes, *, parents: bool = True,
                       mode: int | None = None) -> None:
    """Write ``data`` to ``path`` atomically (see ``atomic_writer``)."""
    with atomic_writer(path, parents=parents, mode=mode) as handle:
        handle.write(data)
