"""Dependency expansion: a routed document's ``**Depends-on:**`` documents come along.

Expansions are marked ``dependency_of`` and are not choices: precision, top-1 and false
alarms count only the routes the router chose.
"""

from __future__ import annotations

from ..index.stored import StoredIndex
from .answer import Route


def expand(stored: StoredIndex, routes: list[Route]) -> list[Route]:
    """The routes' dependencies that the index holds and the routes do not already name."""
    present = {route.name for route in routes}
    extra = []
    for route in list(routes):
        for name in stored.document(route.name).depends_on:
            if stored.position(name) is not None and name not in present:
                present.add(name)
                extra.append(Route(name, 0.0, None, None, f"dependency of {route.name}",
                                   dependency_of=route.name))
    return extra
