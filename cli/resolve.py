"""Find and open the index a command works on, the same way for every command.

Precedence: ``-i FILE``; else ``--corpus DIR`` (built or refreshed into the index path as
needed; when the default index holds another corpus, into a file beside it, so
``--corpus`` never replaces the index the hook reads); else the one search of
:func:`gov.core.index.locate.find_index` (``$GOV_INDEX``, a harness's project folder, the
nearest ``.gov/index`` at or above the current folder).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from . import conventions

if TYPE_CHECKING:
    from gov.core.routing.point import OperatingPoint
    from gov.core.routing.router import Router

def index_path(index: Path | None) -> Path:
    """The index a command reads: ``-i``, else the one search (found or not: a missing one is
    the path the "no index" error names)."""
    from gov.core.index.locate import located

    return located(index)


def output_path(index: Path | None) -> Path:
    """Where a command writes an index: ``-o``/``-i``, else ``$GOV_INDEX``, else
    ``.gov/index`` in the current folder (a build never writes into a folder above)."""
    if index is not None:
        return index
    from gov.core.index.locate import default_index_path

    return default_index_path()


def load_point(path: Path | None) -> OperatingPoint | None:
    if path is None:
        return None
    from gov.core.routing.point import load_operating_point

    return load_operating_point(path)


def open_index(
    index: Path | None,
    corpus: list[Path] | None = None,
    point: Path | None = None,
    lexical_only: bool = False,
    check_stale: bool = True,
    exact: bool = False,
) -> Router:
    """Open the index for a command, building it from ``corpus`` when asked and needed."""
    operating_point = load_point(point)
    target = output_path(index) if corpus else index_path(index)
    if corpus:
        from gov.core.routing.indexes import beside, built_from, ensure_index

        if index is None and built_from(target, corpus) is False:
            # The default index is another corpus's (the one the hook reads): leave it.
            other = target
            target = beside(target, corpus)
            conventions.notice(f"{other} holds an index of another corpus; using {target}")
        loaded, rebuilt = ensure_index(
            [str(p) for p in corpus], target, operating_point=operating_point,
            lexical_only=lexical_only, warn=conventions.warn, exact=exact,
        )
        if rebuilt:
            conventions.notice(f"built index {target} ({len(loaded.names)} documents)")
        return loaded
    from gov.core.routing.indexes import load_index

    if not target.exists():
        from gov.core.index.locate import no_index

        raise no_index(target)
    loaded = load_index(target, operating_point=operating_point, lexical_only=lexical_only, exact=exact)
    if check_stale and loaded.is_stale():
        from .commands.route_lean import stale_warning

        conventions.warn(stale_warning(loaded, target))
    return loaded
