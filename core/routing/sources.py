"""Which routed documents' files a harness may be told to open.

The hook's paragraph can say "or open deployment: docs/deployment.md". The path comes
from the index, and an index can be crafted: a ``source`` of ``../../.ssh/id_rsa`` would
have the agent read a secret into its context. So a file is named only when it lies
inside one of the corpus roots the index records *and* its contents are exactly the
text the index holds for that document; a crafted index can then only point at a file
whose contents it already carries. Anything else (a JSONL document, a file edited since
the build, a path outside the roots) is left to ``gov show NAME -i INDEX``. Each file
is read once and re-read only when its stat changes.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..corpus.reader import document_text

if TYPE_CHECKING:
    from ..index.stored import StoredIndex


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


class SourceFiles:
    """The checked file of each routed document of one stored index."""

    def __init__(self, stored: StoredIndex) -> None:
        self.stored = stored
        self.roots = [os.path.normpath(str(stored.base / root)) for root in stored.header.roots
                      if root != "-"]
        self._checked: dict[str, tuple[tuple[int, ...], bool]] = {}

    def path(self, name: str) -> str | None:
        """The file of document ``name`` to point a harness at, or ``None``."""
        source = self.stored.document(name).source
        if not source or ":" in source:  # JSONL and stdin documents have no file of their own
            return None
        path = os.path.normpath(str(self.stored.base / source))
        if not any(_inside(path, root) for root in self.roots):
            return None
        try:
            info = os.stat(path)
        except OSError:
            return None
        signature = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
        cached = self._checked.get(path)
        if cached is None or cached[0] != signature:
            cached = (signature, document_text(path) == self.stored.text(name))
            self._checked[path] = cached
        return path if cached[1] else None
