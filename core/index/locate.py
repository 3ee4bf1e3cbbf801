"""Where the index is: the one search every command, the hook, MCP and doctor use.

:func:`find_index` looks, in order, at ``-i``; ``$GOV_INDEX``; the project folder the
harness names (``$CLAUDE_PROJECT_DIR``, ``$GEMINI_PROJECT_DIR``, ``$CURSOR_PROJECT_DIR``,
the payload's ``workspace_roots``, the payload's ``cwd``); then the nearest ``.gov/index``
walking up from the working folder, stopping at the repository root (a folder holding
``.git``), the home folder or ``/``. Whatever it finds is opened with the same checks as
any index (:mod:`gov.core.index.validate`): a repository can ship one.

Writing is not searching: :func:`default_index` is where a build puts an index when no
``-o`` is given (``$GOV_INDEX``, else ``.gov/index`` in the working folder).

Imports only the standard library, and nothing at all until called: the hook and the
one-shot route resolve the path on every turn before they know whether they will need
numpy at all.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from pathlib import Path

    from ..errors import IndexLoadError

GOV_DIR = ".gov"  # the one spelling of gov's project folder (the corpus walker skips it too)
INDEX_FILE = "index"
DEFAULT_RELATIVE = os.path.join(GOV_DIR, INDEX_FILE)
INDEX_ENV = "GOV_INDEX"
# The project folder a harness sets for its hook commands (Gemini CLI also sets Claude's).
PROJECT_ENVS = ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "CURSOR_PROJECT_DIR")
# What a hook process tells the warm server about its environment, so the server finds the
# index the hook would have found.
FORWARDED_ENVS = (INDEX_ENV, *PROJECT_ENVS)
REPOSITORY_MARKER = ".git"


class Found(NamedTuple):
    """An index path and how it was chosen. ``exists`` False: nothing was found and ``path``
    is where one was looked for first (the path the "no index" error names)."""

    path: str
    source: str
    exists: bool


def project_folders(environ: Mapping[str, str] | None = None,
                    payload: Mapping[str, Any] | None = None) -> list[tuple[str, str]]:
    """The harness's project folders, (folder, where it came from), in precedence order."""
    env = os.environ if environ is None else environ
    found: list[tuple[str, str]] = []
    for name in PROJECT_ENVS:
        value = env.get(name)
        if value:
            found.append((value, "$" + name))
    if payload is not None:
        roots = payload.get("workspace_roots")
        if isinstance(roots, list):
            found += [(root, "the payload's workspace_roots") for root in roots
                      if isinstance(root, str) and root]
        cwd = payload.get("cwd")
        if isinstance(cwd, str) and cwd:
            found.append((cwd, "the payload's cwd"))
    return found


def _walk_up(start: str, home: str | None) -> str | None:
    """The nearest ``.gov/index`` at or above ``start``, within the repository or home."""
    folder = os.path.abspath(start)
    while True:
        candidate = os.path.join(folder, GOV_DIR, INDEX_FILE)
        if os.path.isfile(candidate):
            return candidate
        if (os.path.exists(os.path.join(folder, REPOSITORY_MARKER))
                or (home is not None and folder == home)):
            return None
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def find_index(explicit: str | os.PathLike[str] | None = None, *, cwd: str | None = None,
               environ: Mapping[str, str] | None = None,
               payload: Mapping[str, Any] | None = None) -> Found:
    """The index a command (``explicit``: its ``-i``), the hook (``payload``: the harness's
    JSON) or a server on its behalf (``cwd``, ``environ``: the caller's) should open.

    Relative paths (``-i``, ``$GOV_INDEX``, a payload folder) are read from the payload's
    ``cwd`` when it names one, else from ``cwd``.
    """
    env = os.environ if environ is None else environ
    here = os.path.abspath(cwd or os.getcwd())
    own = payload.get("cwd") if payload is not None else None
    base = os.path.join(here, own) if isinstance(own, str) and own else here
    if explicit is not None and os.fspath(explicit):
        path = os.path.abspath(os.path.join(base, os.fspath(explicit)))
        return Found(path, "-i", os.path.isfile(path))
    named = env.get(INDEX_ENV)
    if named:
        path = os.path.abspath(os.path.join(base, named))
        return Found(path, "$" + INDEX_ENV, os.path.isfile(path))
    home = env.get("HOME") or os.environ.get("HOME") or None
    home = os.path.abspath(home) if home else None
    starts = [(os.path.join(base, folder), source)
              for folder, source in project_folders(env, payload)]
    starts.append((here, "the working folder"))
    seen: set[str] = set()
    for start, source in starts:
        start = os.path.abspath(start)
        if start in seen:
            continue
        seen.add(start)
        hit = _walk_up(start, home)
        if hit is not None:
            where = "" if os.path.dirname(os.path.dirname(hit)) == start else ", above it"
            return Found(hit, source + where, True)
    first = os.path.abspath(starts[0][0])
    return Found(os.path.join(first, GOV_DIR, INDEX_FILE), starts[0][1], False)


def located(explicit: str | os.PathLike[str] | None = None, **kwargs: Any) -> Path:
    """:func:`find_index`'s path as a :class:`~pathlib.Path` (found or not)."""
    from pathlib import Path

    return Path(find_index(explicit, **kwargs).path)


def default_index(cwd: str | None = None) -> str:
    """Where a build writes when no ``-o`` is given: ``$GOV_INDEX`` if set, else
    ``.gov/index`` under ``cwd`` (default: the current folder). Reading uses :func:`find_index`."""
    explicit = os.environ.get(INDEX_ENV)
    if explicit:
        return explicit
    return os.path.join(cwd or os.getcwd(), GOV_DIR, INDEX_FILE)


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
    from ..errors import IndexLoadError

    return IndexLoadError(f"no index at {path}", hint=build_hint(path, corpus_option))

