"""Where the index is when none is named, and the one error for "there is none".

Imports only the standard library: the hook and the one-shot route resolve the path on
every turn before they know whether they will need numpy at all.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from gov.core.errors import IndexLoadError

if TYPE_CHECKING:
    from pathlib import Path

INDEX_ENV = "GOV_INDEX"


def default_index(cwd: str | None = None) -> str:
    """``$GOV_INDEX`` if set, else ``.gov/index`` under ``cwd`` (default: the current folder)."""
    explicit = os.environ.get(INDEX_ENV)
    if explicit:
        return explicit
    return os.path.join(cwd or os.getcwd(), ".gov", "index")


def default_index_path(cwd: str | os.PathLike[str] | None = None) -> Path:
    """:func:`default_index` as a :class:`~pathlib.Path`."""
    from pathlib import Path

    return Path(default_index(os.fspath(cwd) if cwd is not None else None))


def build_hint(path: str | os.PathLike[str], corpus_option: bool = True) -> str:
    hint = f"build one with: gov index PATH -o {path}"
    return hint + ", or pass --corpus PATH" if corpus_option else hint


def no_index(path: str | os.PathLike[str], corpus_option: bool = True) -> IndexLoadError:
    """The error every command, the hook and the server give when ``path`` holds no index
    (``corpus_option``: the command can build one itself with ``--corpus``)."""
    return IndexLoadError(f"no index at {path}", hint=build_hint(path, corpus_option))
